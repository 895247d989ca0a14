/* The plugin tables' rows (see plugin.h): one X(entry) per framework plugin, and behind them
 * one per engine predicate and priority. Adding a plugin is its file under
 * scheduler/core/plugins/ plus its row here (and its name in plugin-names.h); the name or
 * registry id lives in the entry, so the order of rows does not matter. Included by plugin.h
 * only. */

#define SCHED_FRAMEWORK_PLUGINS(X)                                                                 \
        X(sched_fw_scheduling_gates)                                                              \
        X(sched_fw_priority_sort)                                                                 \
        X(sched_fw_node_resources_fit)                                                            \
        X(sched_fw_node_ports)                                                                    \
        X(sched_fw_node_name)                                                                     \
        X(sched_fw_node_affinity)                                                                 \
        X(sched_fw_node_unschedulable)                                                            \
        X(sched_fw_taint_toleration)                                                              \
        X(sched_fw_pod_topology_spread)                                                           \
        X(sched_fw_inter_pod_affinity)                                                            \
        X(sched_fw_selector_spread)                                                               \
        X(sched_fw_service_affinity)                                                              \
        X(sched_fw_node_label)                                                                    \
        X(sched_fw_image_locality)                                                                \
        X(sched_fw_node_resources_least_allocated)                                                \
        X(sched_fw_node_resources_most_allocated)                                                 \
        X(sched_fw_node_resources_balanced_allocation)                                            \
        X(sched_fw_requested_to_capacity_ratio)                                                   \
        X(sched_fw_node_prefer_avoid_pods)                                                        \
        X(sched_fw_volume_binding)                                                                \
        X(sched_fw_volume_restrictions)                                                           \
        X(sched_fw_volume_zone)                                                                   \
        X(sched_fw_node_volume_limits)                                                            \
        X(sched_fw_ebs_limits)                                                                    \
        X(sched_fw_gce_pd_limits)                                                                 \
        X(sched_fw_azure_disk_limits)                                                             \
        X(sched_fw_cinder_limits)                                                                 \
        X(sched_fw_default_preemption)                                                            \
        X(sched_fw_default_binder)                                                                \
        /* one row per entry, each ending in a backslash: a new row is one added line */

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
