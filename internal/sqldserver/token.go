package sqldserver

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
)

// Key is the study's key: its public half is the file sqld checks every
// request's token against (--auth-jwt-key-file), its private half signs
// the tokens manydb sends. It lives only in the study's manydb process
// and the server's directory.
type Key struct {
	public  ed25519.PublicKey
	private ed25519.PrivateKey
}

// NewKey makes a new Ed25519 key.
func NewKey() (Key, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return Key{}, fmt.Errorf("make the study's key: %w", err)
	}
	return Key{public: pub, private: priv}, nil
}

// PublicFile is the public key as sqld's --auth-jwt-key-file reads it:
// the key's 32 bytes in URL-safe base64, without padding or a newline
// (sqld refuses one).
func (k Key) PublicFile() []byte {
	return []byte(base64.RawURLEncoding.EncodeToString(k.public))
}

// WritePublic writes PublicFile to path, readable by its owner only.
func (k Key) WritePublic(path string) error {
	if err := os.WriteFile(path, k.PublicFile(), 0o600); err != nil {
		return fmt.Errorf("write the server's key file: %w", err)
	}
	return nil
}

// Token is a JWT (EdDSA) signed with the key, granting read and write
// access to every namespace ("a": "rw"), with no expiry: it is valid
// while the server that knows the key runs, that is, for the study.
func (k Key) Token() string {
	header := encodeJSON(map[string]string{"alg": "EdDSA", "typ": "JWT"})
	claims := encodeJSON(map[string]string{"a": "rw"})
	signed := header + "." + claims
	sig := ed25519.Sign(k.private, []byte(signed))
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// encodeJSON is v in JSON, in URL-safe base64 without padding (a JWT's
// part). The maps it is given always encode.
func encodeJSON(v map[string]string) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

// newSecret is the admin API's key: 32 random bytes in hexadecimal (never
// beginning with "-", which sqld would read as an option).
func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make the admin API's key: %w", err)
	}
	return hex.EncodeToString(b), nil
}
