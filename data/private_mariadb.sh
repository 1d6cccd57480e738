# Sourced by the scripts that regenerate committed fixtures from a real MariaDB
# (data/dumps/regenerate.sh, data/merge_day/regenerate.sh, data/collations/regenerate.sh), and by
# tests/mergecheck/with_mariadb.sh for the tests that ask MariaDB itself.
#
#   start_private_mariadb DIR
#
# starts a private mariadbd with its data in DIR/mysql and its unix socket at DIR/mysql.sock
# (no network), waits until it answers, sets $sock to the socket, and traps EXIT to stop it and
# remove DIR. Needs mariadb-server (apt-get install -y mariadb-server); exits 1 naming the
# package when mariadbd is missing.
start_private_mariadb() {
  local dir=$1
  if ! command -v mariadbd > /dev/null; then
    echo "mariadbd not found: apt-get install -y mariadb-server" >&2
    exit 1
  fi
  sock=$dir/mysql.sock
  mariadb-install-db --no-defaults --datadir="$dir/mysql" --user="$(id -un)" \
    --auth-root-authentication-method=normal > "$dir/install.log" 2>&1
  mariadbd --no-defaults --datadir="$dir/mysql" --socket="$sock" --skip-networking \
    --user="$(id -un)" --pid-file="$dir/mysql.pid" --log-error="$dir/mysql.err" &
  private_mariadb_pid=$!
  # shellcheck disable=SC2064  # expand now: the trap must stop this server, remove this folder
  trap "mariadb-admin --no-defaults -S '$sock' -uroot shutdown 2>/dev/null || kill $private_mariadb_pid; wait $private_mariadb_pid || true; rm -rf '$dir'" EXIT
  local _
  for _ in $(seq 300); do
    mariadb-admin --no-defaults -S "$sock" -uroot ping > /dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "mariadbd did not start; see $dir/mysql.err" >&2
  exit 1
}
