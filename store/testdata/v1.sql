-- A results store as agenteval wrote it at schema version 1: one run of
-- two scenarios and one eval of one cell. TestMigrateFromVersion1 loads it
-- ({{serial}} is the dialect's auto-numbered key) and opens it with the
-- current agenteval. Never edit it: a new schema version gets a new file.
CREATE TABLE results_schema (version INTEGER NOT NULL);
INSERT INTO results_schema (version) VALUES (1);
CREATE TABLE results_runs (
  id {{serial}},
  kind TEXT NOT NULL,
  suite TEXT NOT NULL,
  started TEXT NOT NULL,
  git_commit TEXT NOT NULL,
  dirty INTEGER NOT NULL,
  passed INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  errored INTEGER NOT NULL,
  skipped INTEGER NOT NULL,
  nrows INTEGER NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  tokens BIGINT NOT NULL,
  header TEXT NOT NULL
);
CREATE TABLE results_rows (
  run_id BIGINT NOT NULL REFERENCES results_runs (id),
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  variant TEXT NOT NULL,
  status TEXT NOT NULL,
  n INTEGER NOT NULL,
  passed INTEGER NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  tokens BIGINT NOT NULL,
  final TEXT NOT NULL,
  record TEXT NOT NULL,
  transcript TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE INDEX results_runs_suite ON results_runs (suite, started);
INSERT INTO results_runs (kind, suite, started, git_commit, dirty, passed, failed, errored, skipped, nrows, cost_usd, tokens, header) VALUES ('run', 'scenarios', '2026-11-01T09:00:00Z', '0123456789abcdef0123456789abcdef01234567', 0, 1, 1, 0, 0, 2, 0.002, 300, '{"schema":"agenteval.report/v1","passed":1,"failed":1,"errored":0,"skipped":0,"scenarios":null}');
INSERT INTO results_rows (run_id, seq, name, variant, status, n, passed, cost_usd, tokens, final, record, transcript) VALUES (1, 0, 'react/weather', '', 'pass', 1, 1, 0.001, 150, 'It is sunny.', '{"name":"react/weather","file":"react/weather.yaml","status":"pass","agent":{"kind":"react","model":"scripted"},"final":"It is sunny.","usage":{"model_calls":2,"tool_calls":1,"steps":4,"input_tokens":100,"output_tokens":50,"total_tokens":150,"cost_usd":0.001,"cost_known":true}}', 'turn 0
  step 1 agent
');
INSERT INTO results_rows (run_id, seq, name, variant, status, n, passed, cost_usd, tokens, final, record, transcript) VALUES (1, 1, 'tools/search', '', 'fail', 1, 0, 0.001, 150, 'No idea.', '{"name":"tools/search","file":"tools/search.yaml","status":"fail","message":"final: mismatch","agent":{"kind":"react","model":"scripted"},"expectations":[{"name":"final","passed":false,"message":"mismatch","diff":"-Paris\n+No idea."}],"final":"No idea.","usage":{"model_calls":1,"tool_calls":0,"steps":2,"input_tokens":100,"output_tokens":50,"total_tokens":150,"cost_usd":0.001,"cost_known":true}}', '');
INSERT INTO results_runs (kind, suite, started, git_commit, dirty, passed, failed, errored, skipped, nrows, cost_usd, tokens, header) VALUES ('eval', 'suite', '2026-11-01T10:00:00Z', '', 0, 2, 1, 0, 0, 1, 0, 0, '{"schema":"agenteval.eval/v1","eval":"suite","trials_per_cell":3,"seed":1,"control":"base","variants":[{"name":"base"}],"cells":null,"suite":[{"variant":"base","cells":1,"trials":3,"macro_pass_rate":{"value":0.6667,"lo":0.2077,"hi":0.9385},"cost_usd":0}]}');
INSERT INTO results_rows (run_id, seq, name, variant, status, n, passed, cost_usd, tokens, final, record, transcript) VALUES (2, 0, 'capital[Peru]', 'base', 'pass', 3, 2, 0, 0, '', '{"scenario":"capital","case":"Peru","id":"capital[Peru]","variant":"base","n":3,"passed":2,"errored":0,"pass_rate":{"value":0.6667,"lo":0.2077,"hi":0.9385},"cost_usd":{"median":0,"p90":0},"tokens":{"median":0,"p90":0},"verdict":"pass","trials":[{"index":1,"status":"pass","final":"Lima","usage":{"model_calls":1,"tool_calls":0,"steps":1,"input_tokens":0,"output_tokens":0,"total_tokens":0,"cost_usd":0,"cost_known":true}},{"index":2,"status":"fail","message":"final: mismatch","final":"Cusco","usage":{"model_calls":1,"tool_calls":0,"steps":1,"input_tokens":0,"output_tokens":0,"total_tokens":0,"cost_usd":0,"cost_known":true}},{"index":3,"status":"pass","final":"Lima","usage":{"model_calls":1,"tool_calls":0,"steps":1,"input_tokens":0,"output_tokens":0,"total_tokens":0,"cost_usd":0,"cost_known":true}}]}', '');
