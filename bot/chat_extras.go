package bot

import (
	"fmt"
	"slices"
)

// chatExtras fills what !pv, !source and !queue tell: the line and the
// last move's source as the game's live view has them, and the slots.
func (r *gameRunner) chatExtras(v *chatView) {
	v.PV, v.Pondering, v.Source = r.svc.pub.gameLine(r.id)
	s := r.svc
	s.mu.Lock()
	playing, waiting, corr := len(s.games), len(s.queue), len(s.corr.games)
	s.mu.Unlock()
	v.Queue = fmt.Sprintf("Playing %d of %d games; %d challenges waiting.", playing, s.cfg.Policy.MaxGames, waiting)
	if corr > 0 {
		v.Queue += fmt.Sprintf(" %d of %d correspondence games.", corr, s.cfg.Policy.MaxCorrespondence)
	}
}

// gameLine returns a copy of game id's latest engine line (SAN), whether
// it came from a ponder search, and where our last move came from.
func (p *publisher) gameLine(id string) (pv []string, pondering bool, source string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	g := p.games[id]
	if g == nil {
		return nil, false, ""
	}
	if g.Eval != nil {
		pv, pondering = slices.Clone(g.Eval.PV), g.Eval.Ponder
	}
	return pv, pondering, g.Source
}
