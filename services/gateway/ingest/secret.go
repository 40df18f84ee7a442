package ingest

import (
	"path"
	"strings"
)

// A folder walk skips files whose name says they hold secrets: keys,
// certificates, credentials, .env files. The memory service scrubs the
// secrets it recognises, but a file that is nothing but secrets has
// nothing else worth remembering, and a secret of a form the scrubber does
// not know would be stored in clear. A file named on the command line is
// ingested all the same (scrubbed).

// secretNames are file names (lowercase) that hold credentials.
var secretNames = map[string]bool{
	".env": true, ".netrc": true, "_netrc": true, ".git-credentials": true, ".pgpass": true, ".htpasswd": true,
	".npmrc": true, ".pypirc": true, ".dockercfg": true, "credentials.json": true, "client_secret.json": true,
	"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true, "id_ecdsa_sk": true, "id_ed25519_sk": true,
	"terraform.tfstate": true, "terraform.tfstate.backup": true,
}

// secretExts are extensions of key stores, private keys and certificates.
var secretExts = map[string]bool{
	".pem": true, ".key": true, ".p12": true, ".pfx": true, ".jks": true, ".keystore": true,
	".kdbx": true, ".ppk": true, ".tfstate": true, ".env": true,
}

// secretPaths end paths (lowercase, slash-separated) whose folder makes
// them credentials.
var secretPaths = []string{".aws/credentials", ".docker/config.json", ".kube/config", ".config/gh/hosts.yml"}

// envTemplates are .env files that name settings without their values,
// meant to be committed and read.
var envTemplates = map[string]bool{".example": true, ".sample": true, ".template": true, ".dist": true, ".defaults": true}

// isSecretFile tells whether the file at rel (slash-separated) holds
// secrets by its name.
func isSecretFile(rel string) bool {
	lower := strings.ToLower(rel)
	base := path.Base(lower)
	if secretNames[base] || secretExts[path.Ext(base)] {
		return true
	}
	if rest, ok := strings.CutPrefix(base, ".env."); ok {
		return !envTemplates["."+rest]
	}
	for _, p := range secretPaths {
		if lower == p || strings.HasSuffix(lower, "/"+p) {
			return true
		}
	}
	return false
}
