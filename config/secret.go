package config

import (
	"fmt"
	"log/slog"
)

// redacted is what every printing path of a Secret shows.
const redacted = "***"

// Secret holds a credential (the Lichess token). Every way of printing it —
// fmt verbs, slog, JSON — shows "***"; only Reveal returns the value, and it
// is meant for the one place that builds the Authorization header.
type Secret struct {
	v string
}

// NewSecret wraps s.
func NewSecret(s string) Secret { return Secret{v: s} }

// Reveal returns the secret value.
func (s Secret) Reveal() string { return s.v }

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return s.v == "" }

// String returns "***".
func (s Secret) String() string { return redacted }

// GoString returns "***", so %#v does not leak the value.
func (s Secret) GoString() string { return redacted }

// Format prints "***" for every verb (%s, %v, %q, %x, ...).
func (s Secret) Format(f fmt.State, verb rune) { fmt.Fprint(f, redacted) }

// LogValue makes slog print "***".
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON encodes the secret as "***".
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText encodes the secret as "***" (for encoders that use TextMarshaler).
func (s Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }
