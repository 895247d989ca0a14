# metrics-auth-server: /metrics behind kube/auth-delegate over HTTPS, the endpoint the
# delegated-authorization integration test scrapes (tests/integration/61-*; tests/e2e/61-*
# scrapes the real operator and scheduler).
$(eval $(call program,metrics-auth-server,tests/metrics-auth/metrics-auth-server.c,kube common))
HARNESS_PROGRAMS += $(O)/bin/metrics-auth-server
