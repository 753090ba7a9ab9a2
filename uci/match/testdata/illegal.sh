# A UCI "engine" for tests: it answers every go with an illegal move.
while read -r line; do
  case "$line" in
    uci) echo "id name Illegal"; echo uciok ;;
    isready) echo readyok ;;
    go*) echo "info depth 1 score cp 0"; echo "bestmove a1a1" ;;
    quit) exit 0 ;;
  esac
done
