package api

// ExposeRequest is the body of POST /v1/sandboxes/{name}/ports (the
// ExposeRequest schema). Public ports need no token; private ones (the
// default) need the port's token.
type ExposeRequest struct {
	Port   int  `json:"port"`
	Public bool `json:"public,omitempty"`
}

// ExposedPort is an exposed port and how to reach it (the ExposedPort
// schema). URL routes by host name ({port}-{name}.{domain}); PathURL is
// the fallback for clients that cannot set a host name. Token is empty for
// a public port; a private port's URLs take it as ?berth_token= or the
// X-Berth-Preview-Token header.
type ExposedPort struct {
	Port    int    `json:"port"`
	Public  bool   `json:"public"`
	URL     string `json:"url"`
	PathURL string `json:"pathUrl"`
	Token   string `json:"token,omitempty"`
}
