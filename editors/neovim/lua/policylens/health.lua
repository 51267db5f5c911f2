-- :checkhealth policylens: the binary and its version, then what the running server reads (the
-- root and why it was chosen, the config, the live cluster) and how it stands.
local M = {}

local health = vim.health

local function server_cmd()
  local cfg = vim.lsp.config.policylens or {}
  local cmd = type(cfg.cmd) == 'table' and cfg.cmd or { 'policylens', 'serve' }
  return cmd
end

function M.check()
  health.start('policylens: binary')
  local cmd = server_cmd()
  local exe = vim.fn.exepath(cmd[1])
  if exe == '' then
    health.error(('`%s` is not an executable on PATH'):format(cmd[1]), {
      'cargo install --path server/cli (from a checkout), or set cmd in require("policylens").setup{ cmd = ... }',
    })
    return
  end
  health.ok('binary: ' .. exe)
  local out = vim.system({ exe, '--version' }, { text = true }):wait(5000)
  if out.code == 0 then
    health.ok('version: ' .. vim.trim(out.stdout or ''))
  else
    health.warn('`' .. exe .. ' --version` failed: ' .. vim.trim(out.stderr or ''))
  end

  health.start('policylens: language server')
  local c = vim.lsp.get_clients({ name = 'policylens' })[1]
  if not c then
    health.info('not running: open a YAML file (filetype yaml) to start it')
    return
  end
  local resp = c:request_sync('policylens/serverStatus', vim.NIL, 5000)
  local s = resp and resp.result
  if not s then
    health.warn('the server did not answer policylens/serverStatus: ' .. vim.inspect(resp and resp.err))
    return
  end
  health.ok(('state: %s (policylens %s)'):format(s.state, s.version))
  if #(s.roots or {}) == 0 then
    health.warn('root: none yet (no workspace folder; a document opened brings its own)')
  end
  local reasons = type(s.rootReasons) == 'table' and s.rootReasons or {}
  for i, r in ipairs(s.roots or {}) do
    health.info('root: ' .. r .. (reasons[i] and (' (' .. reasons[i] .. ')') or ''))
  end
  local folders = type(s.folders) == 'table' and s.folders or {}
  if #folders > 0 then
    health.info('findings shown for: ' .. table.concat(folders, ', ') .. ' and the open buffers')
  end
  if s.rootNote ~= nil and s.rootNote ~= vim.NIL then
    health.warn('root chosen as a fallback: ' .. s.rootNote, {
      'add a .policylens.yaml (or run git init) at the directory to read, so the root is not guessed',
    })
  end
  if s.config ~= nil and s.config ~= vim.NIL then
    health.info('config: ' .. s.config)
  else
    health.info('config: none (defaults)')
  end
  health.info(('files: %d; findings: %d errors, %d warnings'):format(
    s.files or 0, s.diagnostics and s.diagnostics.error or 0, s.diagnostics and s.diagnostics.warning or 0))
  local cl = s.cluster or {}
  if not cl.enabled then
    health.info('cluster: off')
  elseif cl.connected == true then
    health.ok('cluster: ' .. (cl.message or 'connected'))
  else
    health.warn('cluster: ' .. tostring(cl.message ~= vim.NIL and cl.message or 'not read yet'))
  end
end

return M
