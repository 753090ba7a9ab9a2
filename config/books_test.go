package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestBooksSetting(t *testing.T) {
	c, err := Load(env(map[string]string{
		"PONDEROSA_BOOKS":        " books/bullet.bin:speeds=bullet,ultraBullet:select=best:min_weight=10:max_ply=12; books/any.bin:variants=standard,chess960,fromPosition:name=wide ;",
		"PONDEROSA_BOOK":         "old.bin",
		"PONDEROSA_BOOK_MAX_PLY": "8",
		"PONDEROSA_BOOK_SEED":    "18446744073709551615",
	}))
	if err != nil {
		t.Fatal(err)
	}
	books, from := c.Engine.BookList()
	want := []Book{
		{Path: "books/bullet.bin", Speeds: []string{"bullet", "ultraBullet"}, Variants: []string{"standard"}, Select: SelectBest, MinWeight: 10, MaxPly: 12},
		{Path: "books/any.bin", Name: "wide", Variants: BookVariants(), MaxPly: 8},
		{Path: "old.bin", Variants: []string{"standard"}, MaxPly: 8},
	}
	if !reflect.DeepEqual(books, want) || strings.Join(from, ",") != "PONDEROSA_BOOKS,PONDEROSA_BOOKS,PONDEROSA_BOOK" {
		t.Errorf("books\n%+v\nwant\n%+v\nfrom %v", books, want, from)
	}
	if !c.Engine.BookSeedFixed || c.Engine.BookSeed != 1<<64-1 {
		t.Errorf("seed %d fixed=%v", c.Engine.BookSeed, c.Engine.BookSeedFixed)
	}
	d, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := d.Engine.BookList(); len(b) != 0 || d.Engine.BookSeedFixed {
		t.Errorf("defaults: books %v, seed fixed %v", b, d.Engine.BookSeedFixed)
	}
}

func TestBooksSettingErrors(t *testing.T) {
	cases := []struct {
		env  map[string]string
		name string
		want string
	}{
		{map[string]string{"PONDEROSA_BOOKS": "a.bin:speeds=bulet"}, "PONDEROSA_BOOKS", `book 1: a.bin: speeds: unknown value "bulet"`},
		{map[string]string{"PONDEROSA_BOOKS": "a.bin;b.bin:variants=atomic"}, "PONDEROSA_BOOKS", `book 2: b.bin: variants: unknown value "atomic"`},
		{map[string]string{"PONDEROSA_BOOKS": "a.bin:select=most"}, "PONDEROSA_BOOKS", "select: must be weighted, best or uniform"},
		{map[string]string{"PONDEROSA_BOOKS": "a.bin:min_weight=70000"}, "PONDEROSA_BOOKS", "min_weight: must be an integer from 0 to 65535"},
		{map[string]string{"PONDEROSA_BOOKS": "a.bin:max_ply=0"}, "PONDEROSA_BOOKS", "max_ply: must be an integer from 1 to 200"},
		{map[string]string{"PONDEROSA_BOOKS": "a.bin:name=my book"}, "PONDEROSA_BOOKS", "only letters, digits"},
		{map[string]string{"PONDEROSA_BOOKS": "a.bin:depth=3"}, "PONDEROSA_BOOKS", "depth: unknown key"},
		{map[string]string{"PONDEROSA_BOOKS": "a.bin:best"}, "PONDEROSA_BOOKS", `"best" is not key=value`},
		{map[string]string{"PONDEROSA_BOOKS": "C:/books/a.bin"}, "PONDEROSA_BOOKS", `"/books/a.bin" is not key=value`},
		{map[string]string{"PONDEROSA_BOOKS": "a.bin:speeds=blitz:speeds=rapid"}, "PONDEROSA_BOOKS", "speeds given twice"},
		{map[string]string{"PONDEROSA_BOOKS": "speeds=blitz"}, "PONDEROSA_BOOKS", "want the book's file first"},
		{map[string]string{"PONDEROSA_BOOKS": " ; ;"}, "PONDEROSA_BOOKS", "no book"},
		{map[string]string{"PONDEROSA_BOOKS": "x/a.bin;y/a.bin"}, "PONDEROSA_BOOKS", `both named "a"`},
		{map[string]string{"PONDEROSA_BOOKS": "x/a.bin", "PONDEROSA_BOOK": "y/a.bin"}, "PONDEROSA_BOOK", `both named "a"`},
		{map[string]string{"PONDEROSA_BOOK_SEED": "-1"}, "PONDEROSA_BOOK_SEED", "random or a number"},
	}
	for _, c := range cases {
		_, err := Load(env(c.env))
		if err == nil || !strings.HasPrefix(err.Error(), c.name+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %s: ...%s...", c.env, err, c.name, c.want)
		}
	}
	// Distinct names make the same file name fine.
	if _, err := Load(env(map[string]string{"PONDEROSA_BOOKS": "x/a.bin:name=x;y/a.bin"})); err != nil {
		t.Error(err)
	}
}
