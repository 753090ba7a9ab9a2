package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseRatingBounds(t *testing.T) {
	cases := []struct {
		in      string
		want    map[string]RatingRange
		wantErr string
	}{
		{"", map[string]RatingRange{}, ""},
		{"blitz:1500-2600, bullet:1800-", map[string]RatingRange{"blitz": {1500, 2600}, "bullet": {1800, 0}}, ""},
		{"rapid:-2000", map[string]RatingRange{"rapid": {0, 2000}}, ""},
		{"chess960:1500-2000", nil, "speed one of"},
		{"blitz:1500", nil, "min-max"},
		{"blitz:2600-1500", nil, "minimum above maximum"},
		{"blitz:abc-1500", nil, "400 to 4000"},
		{"blitz:100-1500", nil, "400 to 4000"},
		{"blitz:1500-2000,blitz:1600-", nil, "twice"},
	}
	for _, tc := range cases {
		got, err := parseRatingBounds(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err %v, want one with %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %v %v, want %v", tc.in, got, err, tc.want)
		}
	}
}
