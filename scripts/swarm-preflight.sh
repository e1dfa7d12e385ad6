#!/bin/sh
# Before `docker stack deploy`: what this node and the working copy need, checked where a failure would otherwise
# be silent. Run it on the manager you deploy from, from the repository's folder:
#   sh scripts/swarm-preflight.sh            docker-stack.yml (host-mode ports)
#   sh scripts/swarm-preflight.sh mesh       with docker-stack.mesh.yml: also the kernel's IPVS, which the
#                                            routing mesh needs; run it on every node (each one's kernel counts)
#   sh scripts/swarm-preflight.sh behind-lb  with docker-stack.behind-lb.yml: TRUSTED_LB_ADDRESSES, no certificate
# Exit 0: deploy. Exit 1: a check failed; each failure is one line starting with "REFUSED:".
# Where a mesh stack on a kernel without IPVS goes wrong: it deploys, its nginx tasks are healthy and the update
# "completes", yet the published port refuses every connection (docs/operations.md, "The front door").
# Overrides for checking the checks: DOCKER, IPVS_PROC (/proc/net/ip_vs), MODULES_PROC (/proc/modules),
# DOCKERD_LOG (a file with dockerd's log; else journalctl -u docker, when there is one).
set -u
variant="${1:-host}"
docker="${DOCKER:-docker}"
failed=0
refuse() { echo "REFUSED: $*" >&2; failed=1; }
ok() { echo "ok: $*"; }

case "$variant" in host|mesh|behind-lb) ;; *) echo "usage: sh scripts/swarm-preflight.sh [host|mesh|behind-lb]" >&2; exit 2 ;; esac

# Swarm: active, and this node a manager (only a manager deploys a stack).
state=$("$docker" info --format '{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}' 2>/dev/null)
case "$state" in
  "active true") ok "swarm active, this node is a manager" ;;
  "active "*) refuse "this node is a swarm worker: run the deploy on a manager (docker node ls there)" ;;
  *) refuse "no active swarm here (docker info says '${state:-nothing}'): docker swarm init, or join this node" ;;
esac

# The routing mesh (ingress, endpoint_mode vip) is IPVS in the kernel.
if [ "$variant" = mesh ]; then
  ipvs_proc="${IPVS_PROC:-/proc/net/ip_vs}"
  modules="${MODULES_PROC:-/proc/modules}"
  if [ -e "$ipvs_proc" ] || grep -q '^ip_vs ' "$modules" 2>/dev/null; then
    ok "IPVS is in this kernel ($ipvs_proc or ip_vs in $modules)"
  else
    refuse "no IPVS in this node's kernel (no $ipvs_proc, no ip_vs module loaded): the routing mesh cannot work and its published ports would refuse every connection. Load it (modprobe ip_vs, then restart dockerd) or deploy docker-stack.yml alone (host-mode ports)"
  fi
  if [ -n "${DOCKERD_LOG:-}" ]; then
    log=$(cat "$DOCKERD_LOG" 2>/dev/null)
  elif command -v journalctl >/dev/null 2>&1; then
    log=$(journalctl -u docker --no-pager -n 100000 2>/dev/null)
  else
    log=''
  fi
  if printf '%s' "$log" | grep -q 'Native loadbalancing will not work'; then
    refuse "dockerd logged \"Native loadbalancing will not work\" (its IPVS check failed when it started): after loading ip_vs, restart dockerd"
  fi
fi

# The secrets' files, which `docker stack deploy` reads from this working copy.
for file in deploy/secrets/render_secret deploy/secrets/purge_secret; do
  [ -f "$file" ] || refuse "$file is missing (docs/operations.md, \"First production deploy\": the secrets)"
done
if [ "$variant" != behind-lb ]; then
  cert=deploy/tls/certificate.pem
  key=deploy/tls/key.pem
  if [ ! -f "$cert" ] || [ ! -f "$key" ]; then
    refuse "$cert and $key are needed: the certificate's full chain and its key (docs/operations.md, \"Certificates\")"
  elif ! openssl x509 -in "$cert" -noout -checkend 604800 >/dev/null 2>&1; then
    refuse "$cert is not a certificate, or it expires within 7 days: renew it"
  elif [ "$(openssl x509 -in "$cert" -noout -pubkey 2>/dev/null)" != "$(openssl pkey -in "$key" -pubout 2>/dev/null)" ]; then
    refuse "$key is not the key of $cert"
  else
    ok "$cert: valid for 7 days or more, and $key is its key"
  fi
elif [ -z "$(printf '%s' "${TRUSTED_LB_ADDRESSES:-}" | tr -d ' ,')" ]; then
  refuse "TRUSTED_LB_ADDRESSES is empty: set it to the load balancer's addresses or CIDRs"
fi

# What the gateway refuses at start anyway (NODE_ENV=production): said here, before the tasks fail one by one.
if [ "${DEMO_SITE:-false}" != true ]; then
  [ -n "${CRAFT_API_URL:-}" ] || refuse "CRAFT_API_URL is unset: set it to Craft's GraphQL endpoint (DEMO_SITE=true only for a demo)"
  case "${SITE_URL:-}" in
    https://localhost* | https://127.* | https://\[::1\]*) refuse "SITE_URL=${SITE_URL} is on this machine: set the site's public https address" ;;
    https://?*) ok "SITE_URL=${SITE_URL}" ;;
    *) refuse "SITE_URL='${SITE_URL:-}' is not an https address: set the site's public https address" ;;
  esac
fi

if [ "$failed" -ne 0 ]; then
  echo "preflight FAILED: nothing deployed" >&2
  exit 1
fi
echo "preflight passed ($variant)"
