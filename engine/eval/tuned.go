package eval

// tunedTable holds tuned weights as (middlegame, endgame) pairs, indexed like
// Params. nil means "not tuned yet": Default then uses HandSet. The Texel
// tuner (engine/eval/tune) rewrites this file.
var tunedTable *[NumParams][2]int16
