# The rows of `cascade bench detect`'s "Every configuration" table (its --out file) as rows of a
# results table: "| `MODEL.h5`LABEL | size, step, stride | <the columns named in COLS> |".
#   awk -v model=M -v label=L -v cols='learners/window;CPU 1 thr ms' -F'|' -f experiments/bench_rows.awk FILE
/^\| size \| step \| stride \| windows/ {
  for (i = 2; i < NF; i++) { gsub(/^ +| +$/, "", $i); col[$i] = i }
  on = 1
  next
}
/^$/ { on = 0 }
on && $2 ~ /[0-9]x[0-9]/ {
  for (i = 2; i < NF; i++) gsub(/^ +| +$/, "", $i)
  line = sprintf("| `%s.h5`%s | %s, %s, stride %s |", model, label, $col["size"], $col["step"], $col["stride"])
  n = split(cols, want, ";")
  for (k = 1; k <= n; k++) line = line " " (want[k] in col ? $col[want[k]] : "?") " |"
  print line
}
