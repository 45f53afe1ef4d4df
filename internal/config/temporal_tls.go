package config

import "os"

// TemporalTLS is how a worker or gateway proves itself to a Temporal
// frontend that requires it (deploy/temporal runs one with mutual TLS).
// Files are PEM; they are read when the process connects, and the client
// certificate again whenever its file changes, so a renewed certificate is
// picked up without a restart.
type TemporalTLS struct {
	CertFile   string // TEMPORAL_TLS_CERT: client certificate (mutual TLS)
	KeyFile    string // TEMPORAL_TLS_KEY: its private key
	CAFile     string // TEMPORAL_TLS_CA: roots that sign the frontend's certificate (default: the system's)
	ServerName string // TEMPORAL_TLS_SERVER_NAME: name the frontend's certificate must carry
	// Enabled (TEMPORAL_TLS=true) turns TLS on with none of the files set:
	// a frontend with a publicly trusted certificate.
	Enabled bool
	// APIKey (TEMPORAL_API_KEY) is sent as a bearer token on every call
	// (TLS is then on too); for frontends that authorize by API key.
	APIKey string
}

// On reports whether the connection to Temporal uses TLS.
func (t TemporalTLS) On() bool {
	return t.Enabled || t.CertFile != "" || t.KeyFile != "" || t.CAFile != "" || t.ServerName != "" || t.APIKey != ""
}

func temporalTLSFromEnv() TemporalTLS {
	return TemporalTLS{
		CertFile:   os.Getenv("TEMPORAL_TLS_CERT"),
		KeyFile:    os.Getenv("TEMPORAL_TLS_KEY"),
		CAFile:     os.Getenv("TEMPORAL_TLS_CA"),
		ServerName: os.Getenv("TEMPORAL_TLS_SERVER_NAME"),
		Enabled:    os.Getenv("TEMPORAL_TLS") == "true" || os.Getenv("TEMPORAL_TLS") == "1",
		APIKey:     os.Getenv("TEMPORAL_API_KEY"),
	}
}
