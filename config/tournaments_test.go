package config

import (
	"strings"
	"testing"
)

func TestParseTournaments(t *testing.T) {
	got, err := ParseTournaments(" arena:abcd1234 , swiss:Sw1ss:password=p:a:ss ,XyZ98765:team=my-team:password=x , arena:t2:team=lichess-bots")
	if err != nil {
		t.Fatal(err)
	}
	want := []Tournament{
		{Kind: Arena, ID: "abcd1234"},
		{Kind: Swiss, ID: "Sw1ss", Password: "p:a:ss"},
		{Kind: Arena, ID: "XyZ98765", Team: "my-team", Password: "x"},
		{Kind: Arena, ID: "t2", Team: "lichess-bots"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if s := got[2].String(); s != "arena:XyZ98765:team=my-team:password="+redacted {
		t.Errorf("String() = %q", s)
	}
	if l, err := ParseTournaments("  "); err != nil || l != nil {
		t.Errorf("empty: %v %v", l, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"arena:", "missing the tournament id"},
		{"swiss", "missing the tournament id"},
		{"arena:ab-cd", "only letters and digits"},
		{"arena:abcdefghijklmnopqrstuvwxyz", "too long"},
		{"swiss:abc:team=t", "team= is for arena team battles"},
		{"arena:abc:team=T!", "only lowercase letters"},
		{"arena:abc:team=", "needs the team's id"},
		{"arena:abc:team=a:team=b", "given twice"},
		{"arena:abc:colour=white", "unknown option"},
		{"arena:abc:white", "is not team=T or password=P"},
		{"arena:abc:password=", "empty password"},
		{"arena:abc:password=a\tb", "control character"},
		{"arena:abc,abc", "listed twice"},
		{"arena:abc,,swiss:d", "entry 2: empty tournament"},
		{"password=x", "not password="},
		{strings.Repeat("a,", 20) + "b", "listed twice"},
	} {
		_, err := ParseTournaments(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
	var many []string
	for i := range 21 {
		many = append(many, "arena:t"+string(rune('a'+i)))
	}
	if _, err := ParseTournaments(strings.Join(many, ",")); err == nil || !strings.Contains(err.Error(), "at most 20") {
		t.Errorf("21 tournaments: %v", err)
	}
	// The password never shows in an error.
	_, err = Load(env(map[string]string{"LICHESS_TOKEN": "lip_abc", "PONDEROSA_TOURNAMENTS": "arena:abc:password=hunter2\x01"}))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("bad password: %v", err)
	}
}

// FuzzParseTournaments: any input parses or fails with an error; what
// parses prints back (without its password) and parses again to the same
// tournament, and errors never carry the password.
func FuzzParseTournaments(f *testing.F) {
	for _, s := range []string{"arena:abc", "swiss:x:password=a:b", "id1:team=t-1:password=p", "arena:", ",,", "arena:a:team=", "swiss:a:team=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		l, err := ParseTournaments(v)
		if err != nil {
			if i := strings.Index(v, ":password="); i >= 0 {
				start := i + len(":password=")
				pw, _, _ := strings.Cut(v[start:], ",")
				if len(pw) >= 6 && !strings.Contains(v[:i], pw) && strings.Contains(err.Error(), pw) {
					// The password may equal words of the error's own text
					// ("arena:"): a leak is an error that shows the
					// password but not when the password is another one.
					other := strings.Repeat("Q", len(pw))
					if pw[0] == 'Q' {
						other = strings.Repeat("R", len(pw))
					}
					_, err2 := ParseTournaments(v[:start] + other + v[start+len(pw):])
					if err2 == nil || !strings.Contains(err2.Error(), pw) {
						t.Fatalf("error shows the password: %v", err)
					}
				}
			}
			return
		}
		for _, tr := range l {
			if tr.Kind != Arena && tr.Kind != Swiss || tr.ID == "" || strings.ContainsAny(tr.Password, ",\n") {
				t.Fatalf("parsed %+v from %q", tr, v)
			}
			s := tr.Kind + ":" + tr.ID
			if tr.Team != "" {
				s += ":team=" + tr.Team
			}
			if tr.Password != "" {
				s += ":password=" + tr.Password
			}
			back, err := ParseTournament(s)
			if err != nil || back != tr {
				t.Fatalf("%+v printed as %q reads back as %+v, %v", tr, s, back, err)
			}
		}
	})
}
