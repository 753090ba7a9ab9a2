package lichess

import (
	"errors"
	"testing"
)

var eventSeeds = []string{
	`{"type":"gameStart","game":{"fullId":"Xq2r9Lb1tZk0","gameId":"Xq2r9Lb1","id":"Xq2r9Lb1","color":"black","fen":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1","lastMove":"e2e4","source":"friend","status":{"id":20,"name":"started"},"variant":{"key":"standard","name":"Standard"},"speed":"blitz","perf":"blitz","rated":true,"hasMoved":false,"opponent":{"id":"somebot","username":"SomeBot","rating":2101},"isMyTurn":true,"secondsLeft":180,"rating":2034,"compat":{"bot":true,"board":false}}}`,
	`{"type":"gameFinish","game":{"gameId":"Xq2r9Lb1","color":"black","status":{"id":30,"name":"mate"},"winner":"black","ratingDiff":8,"opponent":{"id":null,"username":"AI level 3","ai":3}}}`,
	`{"type":"challenge","challenge":{"id":"Wm4kT7aZ","url":"https://lichess.org/Wm4kT7aZ","status":"created","challenger":{"id":"alice","name":"Alice","rating":1874,"online":true,"lag":3},"destUser":{"id":"mybot","name":"MyBot","rating":2034,"title":"BOT","online":true},"variant":{"key":"standard","name":"Standard","short":"Std"},"rated":true,"speed":"blitz","timeControl":{"type":"clock","limit":180,"increment":2,"show":"3+2"},"color":"random","finalColor":"white","perf":{"icon":"","name":"Blitz"}},"compat":{"bot":true,"board":false}}`,
	`{"type":"challengeDeclined","challenge":{"id":"P0sQe2Rn","status":"declined","challenger":{"id":"mybot","name":"MyBot"},"destUser":null,"variant":{"key":"standard"},"timeControl":{"type":"unlimited"},"declineReason":"Too fast","declineReasonKey":"toofast"}}`,
	`{"type":"challengeCanceled","challenge":{"id":"abc"}}`,
	`{"type":"somethingNew"}`,
	`{"type":"gameStart","game":{"gameId":7}}`,
	`{"type":"gameStart"}`,
	`[]`, `null`, `{`, `{"type":null}`,
}

var gameSeeds = []string{
	`{"type":"gameFull","id":"Xq2r9Lb1","variant":{"key":"standard","name":"Standard","short":"Std"},"clock":{"initial":180000,"increment":2000},"speed":"blitz","perf":{"name":"Blitz"},"rated":true,"createdAt":1755000000000,"white":{"id":"somebot","name":"SomeBot","title":"BOT","rating":2101},"black":{"id":"mybot","name":"MyBot","title":null,"rating":2034},"initialFen":"startpos","state":{"type":"gameState","moves":"e2e4","wtime":180000,"btime":180000,"winc":2000,"binc":2000,"status":"started"}}`,
	`{"type":"gameState","moves":"e2e4 c7c5 g1f3 d7d6","wtime":176210,"btime":178930,"winc":2000,"binc":2000,"status":"started","bdraw":true,"expiration":{"idleMillis":1,"millisToMove":20000}}`,
	`{"type":"chatLine","room":"player","username":"SomeBot","text":"Good luck!"}`,
	`{"type":"opponentGone","gone":true,"claimWinInSeconds":12}`,
	`{"type":"opponentGone","gone":false}`,
	`{"type":"opponentGone"}`,
	`{"type":"gameState","moves":"","status":35}`,
	`{"type":"gameFull","id":"x"}`,
	`{"type":"gameFull","id":"x","state":{"status":""}}`,
	`{"type":"gameState","moves":"","status":""}`,
}

func TestDecodeEvent(t *testing.T) {
	want := []string{"gameStart", "gameFinish", "challenge", "challengeDeclined", "challengeCanceled", "", "", "", "", "", "", ""}
	for i, s := range eventSeeds {
		ev, err := DecodeEvent([]byte(s))
		got := ""
		if err == nil {
			got = ev.eventType()
		}
		if got != want[i] {
			t.Errorf("%s: got %q (%v), want %q", s, got, err, want[i])
		}
		if i == 5 && !errors.Is(err, ErrUnknownType) {
			t.Errorf("unknown type: %v", err)
		}
	}
	ev, _ := DecodeEvent([]byte(eventSeeds[0]))
	g := ev.(*GameStartEvent).Game
	if g.Status.ID != 20 || g.Status.Name != StatusStarted || *g.SecondsLeft != 180 || g.Opponent.Rating != 2101 || !g.Compat.Bot {
		t.Errorf("gameStart = %+v", g)
	}
	ev, _ = DecodeEvent([]byte(eventSeeds[1]))
	if g := ev.(*GameFinishEvent).Game; g.Opponent.AI != 3 || g.Opponent.ID != "" || g.Winner != Black || g.SecondsLeft != nil {
		t.Errorf("gameFinish = %+v", g)
	}
	ev, _ = DecodeEvent([]byte(eventSeeds[3]))
	if c := ev.(*ChallengeDeclinedEvent).Challenge; c.DestUser != nil || !c.DeclineReasonKey.Is(DeclineTooFast) {
		t.Errorf("declined = %+v", c)
	}
}

func TestDecodeGameEvent(t *testing.T) {
	want := []string{"gameFull", "gameState", "chatLine", "opponentGone", "opponentGone", "", "", "", "", ""}
	for i, s := range gameSeeds {
		ev, err := DecodeGameEvent([]byte(s))
		got := ""
		if err == nil {
			got = ev.gameEventType()
		}
		if got != want[i] {
			t.Errorf("%s: got %q (%v), want %q", s, got, err, want[i])
		}
	}
	ev, _ := DecodeGameEvent([]byte(gameSeeds[0]))
	f := ev.(*GameFull)
	if f.Clock.IncrementTime().Seconds() != 2 || f.Black.Title != "" || f.White.Title != "BOT" || f.State.Moves != "e2e4" || f.State.Status != StatusStarted {
		t.Errorf("gameFull = %+v", f)
	}
	ev, _ = DecodeGameEvent([]byte(gameSeeds[1]))
	s := ev.(*GameStateEvent)
	if wt, _, _, binc := s.Clock(); wt.Milliseconds() != 176210 || binc.Seconds() != 2 || len(s.MoveList()) != 4 || !s.DrawOffered(Black) || s.Expiration.MillisToMove != 20000 {
		t.Errorf("gameState = %+v", s)
	}
	ev, _ = DecodeGameEvent([]byte(gameSeeds[3]))
	if o := ev.(*OpponentGone); !o.Gone || *o.ClaimWinInSeconds != 12 {
		t.Errorf("opponentGone = %+v", o)
	}
}

func FuzzDecodeEvent(f *testing.F) {
	for _, s := range eventSeeds {
		f.Add([]byte(s))
	}
	for _, b := range exampleSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ev, err := DecodeEvent(line)
		if (ev == nil) == (err == nil) {
			t.Fatalf("event %v with error %v", ev, err)
		}
		switch e := ev.(type) {
		case *GameStartEvent:
			if e.Game.GameID == "" {
				t.Fatal("gameStart without id")
			}
		case *GameFinishEvent:
			if e.Game.GameID == "" {
				t.Fatal("gameFinish without id")
			}
		case *ChallengeEvent:
			if e.Challenge.ID == "" {
				t.Fatal("challenge without id")
			}
		}
	})
}

func FuzzDecodeGameEvent(f *testing.F) {
	for _, s := range gameSeeds {
		f.Add([]byte(s))
	}
	for _, b := range exampleSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ev, err := DecodeGameEvent(line)
		if (ev == nil) == (err == nil) {
			t.Fatalf("event %v with error %v", ev, err)
		}
		if g, ok := ev.(*GameFull); ok && (g.ID == "" || g.State.Status == "") {
			t.Fatal("gameFull without id or status")
		}
	})
}

func BenchmarkDecodeGameState(b *testing.B) {
	line := []byte(gameSeeds[1])
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeGameEvent(line); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeGameStart(b *testing.B) {
	line := []byte(eventSeeds[0])
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeEvent(line); err != nil {
			b.Fatal(err)
		}
	}
}
