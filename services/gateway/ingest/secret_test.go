package ingest

import "testing"

func TestIsSecretFile(t *testing.T) {
	for rel, want := range map[string]bool{
		".env": true, "app/.env.local": true, ".env.production": true, "deploy/prod.env": true,
		".env.example": false, ".env.sample": false, ".env.template": false, "config/.env.dist": false,
		"tls/server.pem": true, "tls/server.KEY": true, "cert.p12": true, "cert.pfx": true, "vault.kdbx": true,
		"home/.ssh/id_rsa": true, "home/.ssh/id_ed25519": true, "home/.ssh/id_ed25519.pub": false, "id_mapping.go": false,
		".netrc": true, ".git-credentials": true, ".npmrc": true, ".pypirc": true, "credentials.json": true,
		"home/.aws/credentials": true, ".aws/credentials": true, "creds/credentials": false, ".docker/config.json": true,
		"infra/terraform.tfstate": true, "README.md": false, "environment.md": false, "keys.go": false,
	} {
		if got := isSecretFile(rel); got != want {
			t.Errorf("isSecretFile(%q) = %v, want %v", rel, got, want)
		}
	}
}
