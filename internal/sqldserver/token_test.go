package sqldserver

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

func TestTokenVerifiesWithPublicFile(t *testing.T) {
	k, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := base64.RawURLEncoding.DecodeString(strings.TrimSpace(string(k.PublicFile())))
	if err != nil || len(pub) != ed25519.PublicKeySize {
		t.Fatalf("public key file %q: %d bytes, %v", k.PublicFile(), len(pub), err)
	}
	parts := strings.Split(k.Token(), ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts, want 3", len(parts))
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	if !ed25519.Verify(pub, []byte(parts[0]+"."+parts[1]), sig) {
		t.Fatal("the token's signature does not verify with the public key file")
	}
	var header map[string]string
	b, _ := base64.RawURLEncoding.DecodeString(parts[0])
	if err := json.Unmarshal(b, &header); err != nil || header["alg"] != "EdDSA" {
		t.Fatalf("header %s: %v, want alg EdDSA", b, err)
	}
}

func TestKeysDiffer(t *testing.T) {
	a, _ := NewKey()
	b, _ := NewKey()
	if string(a.PublicFile()) == string(b.PublicFile()) {
		t.Fatal("two keys made alike")
	}
}
