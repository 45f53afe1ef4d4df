package schemas

import _ "embed"

// OpenAPI is the gateway's OpenAPI 3.1 description (openapi.yaml), served
// at /v1/openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte
