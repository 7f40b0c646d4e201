package logins

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
)

// SCRAMVerifier is PostgreSQL's SCRAM-SHA-256 secret of a password (RFC 5802, RFC 7677), in the
// form CREATE ROLE ... PASSWORD stores as it is: SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>.
// The password must need no SASLprep (ours are ASCII letters and digits).
func SCRAMVerifier(password string) (string, error) {
	const iterations = 4096
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return "", err
	}
	mac := func(key []byte, msg string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iterations, b64(salt), b64(stored[:]), b64(mac(salted, "Server Key"))), nil
}

// RandomString is prefix and n characters drawn uniformly from alphabet (crypto/rand).
func RandomString(prefix, alphabet string, n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	out := []byte(prefix)
	for _, c := range b {
		// 256 is not a multiple of every alphabet's length: draw again above the last full multiple.
		for int(c) >= 256-256%len(alphabet) {
			var one [1]byte
			if _, err := rand.Read(one[:]); err != nil {
				return "", err
			}
			c = one[0]
		}
		out = append(out, alphabet[int(c)%len(alphabet)])
	}
	return string(out), nil
}
