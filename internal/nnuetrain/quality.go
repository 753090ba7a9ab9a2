package nnuetrain

import (
	"fmt"
	"io"
	"math"
	"os"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/nnuedata"
)

// An Evaluator is a static evaluation to measure: Eval returns centipawns
// from the side to move's point of view.
type Evaluator struct {
	Name string
	Eval func(pos *board.Position) int
}

// Quality says how well an evaluation predicts the search scores of a
// data set, both on the side to move's point of view: the judge of a
// network that needs no games.
type Quality struct {
	Name string
	N    int
	// MAE is the mean absolute difference between evaluation and search
	// score in centipawns (both capped at ±ScoreCap).
	MAE float64
	// MAEBalanced is the same over the positions whose search score is
	// within ±BalancedScore (NBalanced of them): the positions where the
	// evaluation decides games.
	MAEBalanced float64
	NBalanced   int
	// Sign is the fraction of the positions with |score| ≥ SignScore
	// (NSign of them) whose evaluation has the score's sign.
	Sign  float64
	NSign int
	// Corr is the Pearson correlation of evaluation and score.
	Corr float64
	// Bias is the mean of evaluation − score over the balanced positions
	// and Slope the least-squares slope of evaluation on score over them:
	// a network with a wrong sign, offset or scale shows it here.
	Bias, Slope float64
	// ResultMSE is how well the evaluation predicts the games' results:
	// the mean of (sigmoid(eval/K) − result)², result 0, ½ or 1 for the
	// side to move, at the K (ResultK, centipawns) that fits best. It does
	// not favour the search score's own evaluation as MAE does.
	ResultMSE float64
	ResultK   int
}

// Thresholds of Quality.
const (
	ScoreCap      = 10000 // the data's scores are capped here (nnuedata)
	BalancedScore = 400
	SignScore     = 50
)

func (q Quality) String() string {
	return fmt.Sprintf("%-22s n %d  MAE %.1f cp  |score|≤%d: MAE %.1f cp (n %d), bias %+.1f, slope %.2f  sign %.1f%% (|score|≥%d, n %d)  r %.3f  result MSE %.5f (K %d)",
		q.Name, q.N, q.MAE, BalancedScore, q.MAEBalanced, q.NBalanced, q.Bias, q.Slope, 100*q.Sign, SignScore, q.NSign, q.Corr, q.ResultMSE, q.ResultK)
}

// Selection picks the records of a data file to measure on: from record
// From on, every Every-th (1: all), at most Max (0: no limit). The
// trainer's validation records are From 0, Every = its ValEvery; records
// the network never saw are From = the records it trained on, Every 1.
type Selection struct {
	From, Every, Max int
}

// MeasureFile measures every evaluator on the records of the data file at
// path that sel picks.
func MeasureFile(path string, sel Selection, evs []Evaluator) ([]Quality, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if sel.Every < 1 {
		sel.Every = 1
	}
	if sel.From < 0 {
		sel.From = 0
	}
	if _, err := f.Seek(int64(sel.From)*nnuedata.RecordSize, io.SeekStart); err != nil {
		return nil, err
	}
	rd := nnuedata.NewReader(f)
	var pos []board.Position
	var scores []int
	var results []float64
	var rec nnuedata.Record
	for i := sel.From; sel.Max <= 0 || len(pos) < sel.Max; i++ {
		err := rd.Read(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("nnuetrain: %s: %w", path, err)
		}
		if (i-sel.From)%sel.Every != 0 {
			continue
		}
		p, err := board.ParseFEN(rec.FEN())
		if err != nil {
			return nil, fmt.Errorf("nnuetrain: %s: record %d: %w", path, i, err)
		}
		s, res := int(rec.Score), float64(rec.Result)/2
		if rec.STM == board.Black {
			s, res = -s, 1-res
		}
		pos = append(pos, p)
		scores = append(scores, s)
		results = append(results, res)
	}
	if len(pos) == 0 {
		return nil, fmt.Errorf("nnuetrain: %s: no records from record %d", path, sel.From)
	}
	out := make([]Quality, len(evs))
	evals := make([]int, len(pos))
	for k, ev := range evs {
		for i := range pos {
			evals[i] = ev.Eval(&pos[i])
		}
		out[k] = Measure(ev.Name, evals, scores)
		out[k].ResultMSE, out[k].ResultK = ResultFit(evals, results)
	}
	return out, nil
}

// Measure compares evaluations with search scores (both the side to
// move's point of view, centipawns; the same length).
func Measure(name string, evals, scores []int) Quality {
	q := Quality{Name: name, N: len(evals)}
	var sumAbs, sumBal float64
	var sx, sy, sxx, syy, sxy float64
	var bs, be, bss, bse float64 // balanced: Σs, Σe, Σs², Σs·e
	agree := 0
	for i, e := range evals {
		e = max(-ScoreCap, min(ScoreCap, e))
		s := max(-ScoreCap, min(ScoreCap, scores[i]))
		d := math.Abs(float64(e - s))
		sumAbs += d
		if s >= -BalancedScore && s <= BalancedScore {
			sumBal += d
			q.NBalanced++
			fs, fe := float64(s), float64(e)
			bs, be, bss, bse = bs+fs, be+fe, bss+fs*fs, bse+fs*fe
		}
		if s >= SignScore || s <= -SignScore {
			q.NSign++
			if (s > 0 && e > 0) || (s < 0 && e < 0) {
				agree++
			}
		}
		x, y := float64(e), float64(s)
		sx, sy, sxx, syy, sxy = sx+x, sy+y, sxx+x*x, syy+y*y, sxy+x*y
	}
	if q.N == 0 {
		return q
	}
	n := float64(q.N)
	q.MAE = sumAbs / n
	if q.NBalanced > 0 {
		nb := float64(q.NBalanced)
		q.MAEBalanced = sumBal / nb
		q.Bias = (be - bs) / nb
		if v := bss - bs*bs/nb; v > 0 {
			q.Slope = (bse - bs*be/nb) / v
		}
	}
	if q.NSign > 0 {
		q.Sign = float64(agree) / float64(q.NSign)
	}
	if vx, vy := sxx-sx*sx/n, syy-sy*sy/n; vx > 0 && vy > 0 {
		q.Corr = (sxy - sx*sy/n) / math.Sqrt(vx*vy)
	}
	return q
}

// ResultFit returns the least mean of (sigmoid(eval/K) − result)² over
// K = 50, 60, … 800 centipawns, and that K (results 0, ½ or 1, the side to
// move's).
func ResultFit(evals []int, results []float64) (float64, int) {
	best, bestK := math.Inf(1), 0
	for k := 50; k <= 800; k += 10 {
		sum := 0.0
		for i, e := range evals {
			d := 1/(1+math.Exp(-float64(e)/float64(k))) - results[i]
			sum += d * d
		}
		if mse := sum / float64(max(len(evals), 1)); mse < best {
			best, bestK = mse, k
		}
	}
	return best, bestK
}
