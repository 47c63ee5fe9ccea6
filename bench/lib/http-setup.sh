# Sourced by bench/http.sh, bench/features.sh and bench/hostile.sh: the setup they share.
# Expects ROOT, WORK_PREFIX (the temporary folder's name) and BENCH_TOOLS (of wrk, nginx, curl:
# installed from Debian when missing). Builds abctl release and sets NGINX, ABCTL and WORK; on
# exit stops SERVER_PID and, when NGINX_STARTED is set, nginx, then removes WORK. Defines free_port.
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"

missing=""
for tool in $BENCH_TOOLS; do
  case "$tool" in
    wrk) command -v wrk >/dev/null || missing="$missing wrk" ;;
    nginx) command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing="$missing nginx-light" ;;
    curl) command -v curl >/dev/null || missing="$missing curl" ;;
  esac
done
if [ -n "$missing" ]; then
  echo "bench: installing$missing"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

echo "bench: building abctl (release)"
(cd "$ROOT" && swift build -c release --product abctl 2>&1 | tail -1)
ABCTL="$ROOT/.build/release/abctl"

WORK="$(mktemp -d "/tmp/$WORK_PREFIX.XXXXXX")"
SERVER_PID=""; NGINX_STARTED=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  [ -n "$NGINX_STARTED" ] && "$NGINX" -p "$WORK/nginx" -c nginx.conf -s stop 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
