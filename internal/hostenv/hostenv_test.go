package hostenv

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClean(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reason string
		environ      []string
		pass         []string
		want         []string
	}{
		{"harmless", "the system's variables a program needs to start and find its tools pass, in their order",
			[]string{"PATH=/usr/bin", "HOME=/home/dev", "LANG=C.UTF-8", "LC_ALL=C", "TMPDIR=/tmp", "GOCACHE=/c"}, nil,
			[]string{"PATH=/usr/bin", "HOME=/home/dev", "LANG=C.UTF-8", "LC_ALL=C", "TMPDIR=/tmp", "GOCACHE=/c"}},
		{"providers", "no provider's variable passes, whatever its name says: key, endpoint, organization or file",
			[]string{"OPENAI_API_KEY=sk-x", "ANTHROPIC_API_KEY=sk-ant-x", "GEMINI_API_KEY=AIza", "GOOGLE_APPLICATION_CREDENTIALS=/k.json",
				"AZURE_OPENAI_ENDPOINT=https://x", "MISTRAL_API_KEY=m", "AWS_SECRET_ACCESS_KEY=a", "AWS_PROFILE=p", "HF_TOKEN=hf_x",
				"CO_API_KEY=c", "GROQ_API_KEY=g", "PATH=/bin"}, nil,
			[]string{"PATH=/bin"}},
		{"unknown names", "a name the list does not know fails closed, even one that does not look like a credential",
			[]string{"DATABASE_URL=postgres://u:p@h/d", "MY_SERVICE=x", "HTTPS_PROXY=http://u:p@proxy", "GOPROXY=https://u:p@proxy"}, nil,
			nil},
		{"passed", "what a scenario names passes, and only that",
			[]string{"GITHUB_TOKEN=ghp_x", "NPM_TOKEN=n", "HOME=/h"}, []string{"GITHUB_TOKEN"},
			[]string{"GITHUB_TOKEN=ghp_x", "HOME=/h"}},
		{"malformed", "an entry without a name (Windows' =C:=C:\\ entries) is left out",
			[]string{"=C:=C:\\", "PATH"}, nil, nil},
		{"prefix is not a name", "PATHX is not PATH, LC is not a locale variable",
			[]string{"PATHX=1", "LC=1", "HOMEDIR=1"}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, Clean(tc.environ, tc.pass...)); diff != "" {
				t.Errorf("Clean: %s\nmismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
