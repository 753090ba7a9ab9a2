package uci

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// Option is one UCI option: it describes itself for the "uci" answer and
// accepts new values from "setoption".
type Option interface {
	// Name is the option's name as announced (matched case-insensitively).
	Name() string
	// Declare returns the "option name … type …" line.
	Declare() string
	// Set applies a value (ignored for buttons). The returned note, if not
	// empty, is reported to the GUI as an info string (e.g. clamping).
	Set(value string) (note string, err error)
}

// IntOption is a spin option bound to an int; OnChange runs after a change.
// When OnChange fails, the option keeps its old value and Set returns the
// error.
type IntOption struct {
	OptName           string
	Default, Min, Max int
	Value             *int
	OnChange          func() error
}

// Name implements Option.
func (o *IntOption) Name() string { return o.OptName }

// Declare implements Option.
func (o *IntOption) Declare() string {
	return fmt.Sprintf("option name %s type spin default %d min %d max %d", o.OptName, o.Default, o.Min, o.Max)
}

// Set implements Option: out-of-range values are clamped, with a note.
func (o *IntOption) Set(value string) (string, error) {
	v, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil {
		return "", fmt.Errorf("option %s: %q is not an integer", o.OptName, value)
	}
	note := ""
	if v < o.Min || v > o.Max {
		c := min(max(v, o.Min), o.Max)
		note = fmt.Sprintf("option %s: %d is out of range [%d, %d], using %d", o.OptName, v, o.Min, o.Max, c)
		v = c
	}
	was := *o.Value
	*o.Value = v
	if o.OnChange != nil {
		if err := o.OnChange(); err != nil {
			*o.Value = was
			return "", fmt.Errorf("option %s: %w", o.OptName, err)
		}
	}
	return note, nil
}

// BoolOption is a check option bound to a bool; OnChange as for IntOption.
type BoolOption struct {
	OptName  string
	Default  bool
	Value    *bool
	OnChange func() error
}

// Name implements Option.
func (o *BoolOption) Name() string { return o.OptName }

// Declare implements Option.
func (o *BoolOption) Declare() string {
	return fmt.Sprintf("option name %s type check default %t", o.OptName, o.Default)
}

// Set implements Option: "true" or "false", in any case.
func (o *BoolOption) Set(value string) (string, error) {
	was := *o.Value
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "true":
		*o.Value = true
	case "false":
		*o.Value = false
	default:
		return "", fmt.Errorf("option %s: %q is not true or false", o.OptName, value)
	}
	if o.OnChange != nil {
		if err := o.OnChange(); err != nil {
			*o.Value = was
			return "", fmt.Errorf("option %s: %w", o.OptName, err)
		}
	}
	return "", nil
}

// ButtonOption runs Press when set.
type ButtonOption struct {
	OptName string
	Press   func()
}

// Name implements Option.
func (o *ButtonOption) Name() string { return o.OptName }

// Declare implements Option.
func (o *ButtonOption) Declare() string { return "option name " + o.OptName + " type button" }

// Set implements Option.
func (o *ButtonOption) Set(string) (string, error) {
	o.Press()
	return "", nil
}

// StringOption is a string option; Apply checks and applies a value (an
// error keeps the old value).
type StringOption struct {
	OptName string
	Default string
	Value   *string
	Apply   func(v string) (note string, err error)
}

// Name implements Option.
func (o *StringOption) Name() string { return o.OptName }

// Declare implements Option. UCI writes an empty default as <empty>.
func (o *StringOption) Declare() string {
	d := o.Default
	if d == "" {
		d = "<empty>"
	}
	return "option name " + o.OptName + " type string default " + d
}

// Set implements Option.
func (o *StringOption) Set(value string) (string, error) {
	v := strings.TrimSpace(value)
	if v == "<empty>" {
		v = ""
	}
	note := ""
	if o.Apply != nil {
		var err error
		if note, err = o.Apply(v); err != nil {
			return "", err
		}
	}
	*o.Value = v
	return note, nil
}

// settings are the values the options control.
type settings struct {
	hash, threads, multiPV, overheadMS, elo int
	ponder, chess960, limitStrength         bool
	useNNUE, corrHist, ttPV                 bool
	evalFile                                string
	net                                     *nnue.Network // loaded from evalFile (or given at start)
}

// evalFileOption is the EvalFile option: a value names a network file to
// load ("" goes back to the network the engine started with, which may be
// none); apply then pushes it to the engine.
func (s *settings) evalFileOption(initial *nnue.Network, apply func() error) *StringOption {
	return &StringOption{OptName: "EvalFile", Value: &s.evalFile, Apply: func(v string) (string, error) {
		net, note := initial, ""
		if v != "" {
			n, err := nnue.Load(v)
			if err != nil {
				return "", fmt.Errorf("option EvalFile: %w", err)
			}
			net, note = n, fmt.Sprintf("EvalFile: loaded %s (%s, %s)", v, n.ID(), n.Shape())
		}
		was := s.net
		s.net = net
		if err := apply(); err != nil {
			s.net = was
			return "", fmt.Errorf("option EvalFile: %w", err)
		}
		return note, nil
	}}
}

// newOptions builds the option table over s; apply pushes engine settings
// to the engine, clearHash empties the hash table. Each option's announced
// default is s's value when the table is built: the engine's starting
// options, so that a GUI that never sends setoption gets what was
// announced.
func newOptions(s *settings, apply func() error, clearHash func(), initialNet *nnue.Network) []Option {
	return []Option{
		&IntOption{OptName: "Hash", Default: s.hash, Min: engine.MinHashMB, Max: engine.MaxHashMB, Value: &s.hash, OnChange: apply},
		&IntOption{OptName: "Threads", Default: s.threads, Min: engine.MinThreads, Max: engine.MaxThreads, Value: &s.threads, OnChange: apply},
		&BoolOption{OptName: "Ponder", Default: false, Value: &s.ponder},
		&IntOption{OptName: "MultiPV", Default: s.multiPV, Min: engine.MinMultiPV, Max: engine.MaxMultiPV, Value: &s.multiPV, OnChange: apply},
		&IntOption{OptName: "Move Overhead", Default: s.overheadMS, Min: 0, Max: 5000, Value: &s.overheadMS, OnChange: apply},
		&ButtonOption{OptName: "Clear Hash", Press: clearHash},
		&BoolOption{OptName: "UCI_Chess960", Default: false, Value: &s.chess960},
		&BoolOption{OptName: "UCI_LimitStrength", Default: s.limitStrength, Value: &s.limitStrength, OnChange: apply},
		&IntOption{OptName: "UCI_Elo", Default: s.elo, Min: engine.MinElo, Max: engine.MaxElo, Value: &s.elo, OnChange: apply},
		&BoolOption{OptName: "Use NNUE", Default: initialNet != nil, Value: &s.useNNUE, OnChange: apply},
		s.evalFileOption(initialNet, apply),
		&BoolOption{OptName: "Correction History", Default: s.corrHist, Value: &s.corrHist, OnChange: apply},
		&BoolOption{OptName: "TT PV", Default: s.ttPV, Value: &s.ttPV, OnChange: apply},
	}
}

// settingsOf returns the UCI settings of engine options o.
func settingsOf(o engine.Options) settings {
	return settings{
		hash: o.HashMB, threads: o.Threads, multiPV: o.MultiPV,
		overheadMS: int(o.MoveOverhead / time.Millisecond), limitStrength: o.LimitStrength, elo: o.Elo,
		net: o.Net, useNNUE: o.Net != nil, corrHist: o.CorrectionHistory, ttPV: o.TTPV,
	}
}

// engineOptions converts the settings into engine options, keeping fields
// the UCI layer does not control (such as the evaluation weights).
func (s *settings) engineOptions(base engine.Options) engine.Options {
	base.HashMB = s.hash
	base.Threads = s.threads
	base.MultiPV = s.multiPV
	base.MoveOverhead = time.Duration(s.overheadMS) * time.Millisecond
	base.LimitStrength = s.limitStrength
	base.Elo = s.elo
	base.CorrectionHistory = s.corrHist
	base.TTPV = s.ttPV
	base.Net = nil
	if s.useNNUE {
		base.Net = s.net
	}
	return base
}
