package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// TestWaitKeepsPanicStack: a panic inside a search (here in the report
// func, called by the main search thread) comes out of Wait as a *Panic
// that carries the stack where it happened.
func TestWaitKeepsPanicStack(t *testing.T) {
	e := New(Options{HashMB: 1, Threads: 2})
	h := e.Start(context.Background(), board.NewGame(board.StartPosition()), Limits{Depth: 3},
		func(Info) { panic("injected") })
	var got any
	func() {
		defer func() { got = recover() }()
		h.Wait()
	}()
	p, ok := got.(*Panic)
	if !ok {
		t.Fatalf("Wait raised %T %v, want a *Panic", got, got)
	}
	if p.Value != "injected" || !strings.Contains(p.Error(), "injected") {
		t.Errorf("value %v, error %q", p.Value, p.Error())
	}
	for _, want := range []string{"TestWaitKeepsPanicStack.func1", "(*worker).iterate"} {
		if !strings.Contains(string(p.Stack), want) {
			t.Errorf("stack lacks %s:\n%s", want, p.Stack)
		}
	}
	// The engine is usable again.
	if r := e.Search(context.Background(), board.NewGame(board.StartPosition()), Limits{Depth: 2}, nil); r.Best == board.NoMove {
		t.Error("no move after the panic")
	}
}
