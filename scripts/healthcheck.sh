# The containers' health check, for either service without being told which: a container runs one, and whichever
# of the two ports answers 200 to GET /healthz is that one (exit 0); neither does: exit 1.
# Plain bash (/dev/tcp), not `node -e`: starting Node took about 100 times the CPU and 28 times the memory (84 MB) of
# this script, measured side by side, and on a loaded node that start alone outlasted the check's timeout, so Swarm
# replaced healthy tasks.
# Run from the app's folder: HEALTHCHECK in the Dockerfile, healthcheck in docker-compose.yml and docker-stack.yml.
# Quiet: a refused port is an answer ("not this service"), not an error.
exec 2>/dev/null
for port in "${PORT:-3000}" "${RENDERER_PORT:-3001}"; do
  exec 3<>"/dev/tcp/127.0.0.1/${port}" || continue
  printf 'GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
  # A service that takes the connection but never answers (hung) is given 1.5 s.
  IFS= read -r -t 1.5 status <&3
  exec 3<&-
  case "${status}" in "HTTP/1."?" 200 "*) exit 0 ;; esac
done
exit 1
