package pack

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/triage"
)

func TestParseSpec(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		spec string
		want *triage.APISurface
	}{
		{
			name: "swagger 2 with basePath, quoted and bare version",
			spec: "swagger: 2.0\nbasePath: /v1/\npaths:\n  /customers:\n    GET: {operationId: listCustomers}\n    x-internal: true\n  /customers/{id}:\n",
			want: &triage.APISurface{
				Operations: []triage.Operation{{Method: "GET", Path: "/customers", OperationID: "listCustomers"}},
				Paths:      []string{"/customers", "/customers/{id}", "/v1/customers", "/v1/customers/{id}"},
			},
		},
		{
			name: "openapi 3 JSON with a BOM and a server path",
			spec: "\ufeff{\"openapi\": \"3.1.0\", \"servers\": [{\"url\": \"https://api.test/api?x=1\"}, {\"url\": \"/\"}],\n" +
				"\"paths\": {\"/invoices/{id}/pay\": {\"post\": {}, \"delete\": {\"operationId\": \"voidInvoice\"}, \"summary\": \"s\"}}}",
			want: &triage.APISurface{
				Operations: []triage.Operation{
					{Method: "POST", Path: "/invoices/{id}/pay"},
					{Method: "DELETE", Path: "/invoices/{id}/pay", OperationID: "voidInvoice"},
				},
				Paths: []string{"/api/invoices/{id}/pay", "/invoices/{id}/pay"},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSpec([]byte(c.spec))
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestParseSpecErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"swagger: '1.2'\npaths: {}\n":              "swagger: version 1.2 is not 2.0",
		"openapi: 3.0.0\npaths:\n  invoices: {}\n": `paths: "invoices" does not start with /`,
		"openapi: 3.0.0\npaths:\n  /x: 3\n":        `paths["/x"]: want a mapping, got number`,
		"openapi: 3.0.0\npaths: null\n":            `no "paths": the spec declares no API surface`,
		"a: &a [*a]\n":                             "not valid YAML",
	}
	for spec, want := range cases {
		_, err := ParseSpec([]byte(spec))
		require.ErrorContains(t, err, want, "spec %q", spec)
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Add([]byte(miniSpec))
	f.Add([]byte(`{"swagger":"2.0","paths":{"/a":{"get":{}}}}`))
	f.Add([]byte("openapi: 3.0.0\npaths: {/a: {get: {operationId: [1]}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		api, err := ParseSpec(data)
		if err == nil && api == nil {
			t.Fatal("nil surface without an error")
		}
	})
}
