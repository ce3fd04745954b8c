# answers with the names and values of its environment, one line
cat >/dev/null
vars=$(env | tr '\n"\\' '   ')
printf '{"score": 1, "reason": "%s"}\n' "$vars"
