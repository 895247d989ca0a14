/* The engine's filters and scores behind the framework plugins, by Policy registry id: one
 * X(entry) per predicate and priority (legacy_registry.go's map onto the plugins, seen from the
 * engine). The framework plugins themselves have no list here: config/plugin-list.h is the one
 * list, and each of its rows is the object sched_plugin_<Name> (plugin.h). The registry id lives
 * in the entry, so the order of rows does not matter. Included by plugin.h only. */

#define SCHED_PREDICATE_PLUGINS(X)                                                                 \
        X(sched_pred_check_node_condition)                                                        \
        X(sched_pred_check_node_unschedulable)                                                    \
        X(sched_pred_general_predicates)                                                          \
        X(sched_pred_host_name)                                                                   \
        X(sched_pred_pod_fits_host_ports)                                                         \
        X(sched_pred_match_node_selector)                                                         \
        X(sched_pred_pod_fits_resources)                                                          \
        X(sched_pred_no_disk_conflict)                                                            \
        X(sched_pred_pod_tolerates_node_taints)                                                   \
        X(sched_pred_pod_tolerates_node_no_execute_taints)                                        \
        X(sched_pred_check_node_label_presence)                                                   \
        X(sched_pred_check_service_affinity)                                                      \
        X(sched_pred_max_ebs_volume_count)                                                        \
        X(sched_pred_max_gce_pd_volume_count)                                                     \
        X(sched_pred_max_csi_volume_count)                                                        \
        X(sched_pred_max_azure_disk_volume_count)                                                 \
        X(sched_pred_max_cinder_volume_count)                                                     \
        X(sched_pred_check_volume_binding)                                                        \
        X(sched_pred_no_volume_zone_conflict)                                                     \
        X(sched_pred_check_node_memory_pressure)                                                  \
        X(sched_pred_check_node_pid_pressure)                                                     \
        X(sched_pred_check_node_disk_pressure)                                                    \
        X(sched_pred_even_pods_spread)                                                            \
        X(sched_pred_match_inter_pod_affinity)                                                    \
        X(sched_pred_masters_schedulable)                                                         \
        /* one row per entry, each ending in a backslash: a new row is one added line */

#define SCHED_PRIORITY_PLUGINS(X)                                                                  \
        X(sched_prio_least_requested)                                                             \
        X(sched_prio_most_requested)                                                              \
        X(sched_prio_balanced_resource_allocation)                                                \
        X(sched_prio_selector_spread)                                                             \
        X(sched_prio_service_spreading)                                                           \
        X(sched_prio_inter_pod_affinity)                                                          \
        X(sched_prio_node_affinity)                                                               \
        X(sched_prio_taint_toleration)                                                            \
        X(sched_prio_image_locality)                                                              \
        X(sched_prio_node_prefer_avoid_pods)                                                      \
        X(sched_prio_equal)                                                                       \
        X(sched_prio_even_pods_spread)                                                            \
        X(sched_prio_service_anti_affinity)                                                       \
        X(sched_prio_node_label)                                                                  \
        X(sched_prio_requested_to_capacity_ratio)                                                 \
        /* one row per entry, each ending in a backslash: a new row is one added line */
