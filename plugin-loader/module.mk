# The out-of-tree plugin loader (dlopen of <Name>.so files, their trust checks and the call
# watchdog): a library of its own, since the scheduler daemon runs the plugins and
# policy-validator validates a configuration that names them, and a command must not include
# the daemon's headers.
$(eval $(call static_lib,pluginloader,plugin-loader/plugin-loader.c))
