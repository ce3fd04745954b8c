package serve

import (
	"net/http"
	"slices"
	"strings"
)

// The model list: enough of GET /v1/models (and /v1/models/{id}) for
// clients that list models before they call one. OpenAI's layout is
// {"object": "list", "data": [{"id", "object": "model", "created",
// "owned_by"}]}; a request with an Anthropic-Version header gets
// Anthropic's, {"data": [{"type": "model", "id", "display_name",
// "created_at", "capabilities", "max_input_tokens", "max_tokens"}],
// "has_more", "first_id", "last_id"}; one with a Gemini key
// (x-goog-api-key, key=) gets Google's, {"models": [{"name":
// "models/<id>", "baseModelId", "version", "displayName",
// "supportedGenerationMethods"}]}. Without Options.Models the list is
// empty and any id is found.

type oaModel struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int    `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// anModel is Anthropic's ModelInfo; what serve cannot know of a model
// (its capabilities and token limits) is null.
type anModel struct {
	Type           string `json:"type"`
	ID             string `json:"id"`
	DisplayName    string `json:"display_name"`
	CreatedAt      string `json:"created_at"`
	Capabilities   *any   `json:"capabilities"`
	MaxInputTokens *int   `json:"max_input_tokens"`
	MaxTokens      *int   `json:"max_tokens"`
}

// serveModels answers a model listing or lookup; false when the path is
// not one.
func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) bool {
	path := strings.TrimSuffix(r.URL.Path, "/")
	i := strings.LastIndex(path, "/models")
	if i < 0 {
		return false
	}
	rest := path[i+len("/models"):]
	if rest != "" && (rest[0] != '/' || strings.Contains(rest[1:], "/")) {
		return false
	}
	anth := r.Header.Get("Anthropic-Version") != ""
	p := guessProtocol(anth, geminiKey(r.Header, r.URL.RawQuery) != "")
	if s.opts.Key != "" && !authorized(p, r, s.opts.Key) {
		s.problem("%s %s: missing or wrong API key", r.Method, r.URL.Path)
		e := errUnauthorized(p)
		if p == Gemini {
			e = geminiErrUnauthorized(r.Header, r.URL.RawQuery)
		}
		writeError(w, p, e)
		return true
	}
	if p == Gemini {
		s.serveGeminiModels(w, strings.TrimPrefix(rest, "/"))
		return true
	}
	oa := func(id string) oaModel { return oaModel{ID: id, Object: "model", OwnedBy: "agenteval"} }
	an := func(id string) anModel {
		return anModel{Type: "model", ID: id, DisplayName: id, CreatedAt: "1970-01-01T00:00:00Z"}
	}
	if id := strings.TrimPrefix(rest, "/"); id != "" {
		if len(s.opts.Models) > 0 && !slices.Contains(s.opts.Models, id) {
			writeError(w, p, errUnknownModel(p, id))
			return true
		}
		if anth {
			writeJSON(w, http.StatusOK, an(id))
		} else {
			writeJSON(w, http.StatusOK, oa(id))
		}
		return true
	}
	if !anth {
		list := struct {
			Object string    `json:"object"`
			Data   []oaModel `json:"data"`
		}{Object: "list", Data: []oaModel{}}
		for _, m := range s.opts.Models {
			list.Data = append(list.Data, oa(m))
		}
		writeJSON(w, http.StatusOK, list)
		return true
	}
	list := struct {
		Data    []anModel `json:"data"`
		HasMore bool      `json:"has_more"`
		FirstID *string   `json:"first_id"`
		LastID  *string   `json:"last_id"`
	}{Data: []anModel{}}
	for _, m := range s.opts.Models {
		list.Data = append(list.Data, an(m))
	}
	if n := len(s.opts.Models); n > 0 {
		list.FirstID, list.LastID = &s.opts.Models[0], &s.opts.Models[n-1]
	}
	writeJSON(w, http.StatusOK, list)
	return true
}

// gmModel is a Gemini Model resource, as far as the server fills it.
type gmModel struct {
	Name                       string   `json:"name"`
	BaseModelID                string   `json:"baseModelId"`
	Version                    string   `json:"version"`
	DisplayName                string   `json:"displayName"`
	SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
}

// serveGeminiModels answers GET .../models (id "") and .../models/{id}
// in Google's layout.
func (s *Server) serveGeminiModels(w http.ResponseWriter, id string) {
	gm := func(id string) gmModel {
		return gmModel{Name: "models/" + id, BaseModelID: id, Version: "001", DisplayName: id,
			SupportedGenerationMethods: []string{"generateContent", "streamGenerateContent"}}
	}
	if id != "" {
		if len(s.opts.Models) > 0 && !slices.Contains(s.opts.Models, id) {
			writeError(w, Gemini, geminiErrUnknownModel(id))
			return
		}
		writeJSON(w, http.StatusOK, gm(id))
		return
	}
	list := struct {
		Models []gmModel `json:"models"`
	}{Models: []gmModel{}}
	for _, m := range s.opts.Models {
		list.Models = append(list.Models, gm(m))
	}
	writeJSON(w, http.StatusOK, list)
}
