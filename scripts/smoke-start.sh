#!/usr/bin/env bash
# Starts `npm start` on a free port, checks the reference at / and one answer under each base
# path, then stops it with SIGINT (Ctrl-C) and checks that nothing is left running.
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
log=$(mktemp)
PORT=$port setsid npm start >"$log" 2>&1 &
pgid=$!
ok=1
# Ready when /healthz answers, however long a loaded machine takes; given up only when npm start
# has exited, or after 10 minutes as a guard against a hang.
ready=0
for _ in $(seq 1 1200); do
  if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then ready=1; break; fi
  kill -0 -- "-$pgid" 2>/dev/null || break
  sleep 0.5
done
[ "$ready" = 1 ] || { echo "smoke: npm start never answered /healthz"; ok=0; }
check() { # name, expected status, curl args...
  local name=$1 want=$2; shift 2
  local got
  got=$(curl -s -o /dev/null -w '%{http_code}' "$@")
  if [ "$got" = "$want" ]; then echo "smoke: $name -> $got"; else echo "smoke: $name -> $got, expected $want"; ok=0; fi
}
check "reference at /" 200 "http://127.0.0.1:$port/"
check "calendar reference" 200 "http://127.0.0.1:$port/calendar/"
check "GET /calendar/v3/colors" 200 -H 'Authorization: Bearer t' "http://127.0.0.1:$port/calendar/v3/colors"
check "GET /doubleclicksearch/v2/.../idmapping" 200 -H 'Authorization: Bearer t' "http://127.0.0.1:$port/doubleclicksearch/v2/agency/1/advertiser/2/idmapping"
grep -q "http://127.0.0.1:$port/calendar/v3" "$log" || { echo "smoke: npm start did not print the Calendar URL"; ok=0; }
kill -INT -- "-$pgid" 2>/dev/null
# A clean stop takes well under a second on an idle machine; 60 s is the guard for a loaded one.
for _ in $(seq 1 240); do kill -0 -- "-$pgid" 2>/dev/null || break; sleep 0.25; done
if kill -0 -- "-$pgid" 2>/dev/null; then
  echo "smoke: npm start still running 60 s after Ctrl-C"; ok=0
  kill -KILL -- "-$pgid" 2>/dev/null
fi
[ "$ok" = 1 ] || { echo "--- npm start output"; cat "$log"; }
rm -f "$log"
[ "$ok" = 1 ]
