#!/bin/sh
# Starts nginx with nginx-behind-lb.conf: first writes the addresses of the
# load balancer that ends TLS (TRUSTED_LB_ADDRESSES: addresses or CIDRs,
# separated by commas or spaces) into the file that configuration includes,
# as set_real_ip_from lines and a geo block. Refuses to start without them:
# every client would then count as the load balancer's one address.
#   sh nginx-behind-lb-start.sh                  nginx -g 'daemon off;' (the container)
#   sh nginx-behind-lb-start.sh COMMAND ARGS…   that command instead (the tests)
set -eu
out="${TRUSTED_LB_CONF:-/tmp/nginx-trusted-lb.conf}"
addresses=$(printf '%s' "${TRUSTED_LB_ADDRESSES:-}" | tr ',' ' ')
if [ -z "$(printf '%s' "$addresses" | tr -d ' \t\n')" ]; then
  echo "TRUSTED_LB_ADDRESSES is empty: set it to the load balancer's addresses or CIDRs (e.g. 10.0.0.0/8), comma-separated" >&2
  exit 2
fi
real_ip=''
geo=''
for address in $addresses; do
  case "$address" in
    *[!0-9A-Fa-f.:/]*)
      echo "TRUSTED_LB_ADDRESSES: \"$address\" is not an address or CIDR" >&2
      exit 2
      ;;
  esac
  real_ip="${real_ip}set_real_ip_from ${address};
"
  geo="${geo}  ${address} 1;
"
done
printf '# Written by nginx-behind-lb-start.sh from TRUSTED_LB_ADDRESSES.\n%sgeo $realip_remote_addr $from_trusted_lb {\n  default 0;\n%s}\n' "$real_ip" "$geo" > "$out"
if [ "$#" -gt 0 ]; then exec "$@"; fi
exec nginx -g 'daemon off;'
