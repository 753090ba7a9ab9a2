# A UCI "engine" for tests: it exits with status 3 when asked to search.
while read -r line; do
  case "$line" in
    uci) echo "id name Crash"; echo uciok ;;
    isready) echo readyok ;;
    go*) echo "crashing" >&2; exit 3 ;;
    quit) exit 0 ;;
  esac
done
