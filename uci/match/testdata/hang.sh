# A UCI "engine" for tests: it never answers go, not even after stop.
while read -r line; do
  case "$line" in
    uci) echo "id name Hang"; echo uciok ;;
    isready) echo readyok ;;
    quit) exit 0 ;;
  esac
done
