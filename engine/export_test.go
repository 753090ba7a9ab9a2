package engine

// SetKnob switches an experimental search feature for A/B self-play tests.
func SetKnob(e *Engine, name string, on bool) {
	switch name {
	case "nosingular":
		e.knobs.noSingular = on
	case "norazor":
		e.knobs.noRazor = on
	case "noseeprunechecks":
		e.knobs.noSEEPruneChecks = on
	case "noqchecks":
		e.knobs.noQChecks = on
	default:
		panic("engine: unknown knob " + name)
	}
}
