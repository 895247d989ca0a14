# The 1.32 oracle's fixtures (tests/data/oracle-1.32/, recorded by tests/oracle/record)
# replayed in memory on libschedcore
$(eval $(call unit_test,test-oracle-replay,tests/unit/test-oracle-replay.c tests/unit/case-dirs.c,schedcore config kube common))
