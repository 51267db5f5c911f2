-- policylens for Neovim 0.11+: the language server plus four commands.
--
--   require('policylens').setup()   -- enables the server and defines the commands
--
-- :PolicylensExplain   the effective policies of the object under the cursor, per path, with
--                      the policy that won each field (a floating window; `q` closes it)
-- :PolicylensStatus    every policy that is not fully enforced, in the quickfix list
-- :PolicylensGraph [mermaid|dot]   the topology with its policies, in a scratch buffer
-- :PolicylensWithout [REF...]   what deleting the policy under the cursor (or the policies
--                      named) would do, `policylens diff --without`'s report, in a scratch
--                      buffer; also the "Preview removing this policy" code action
-- :checkhealth policylens   the binary, its version, the root it reads (and why), the config,
--                           the cluster
--
-- Defaults (setup{} options): codelens = true refreshes the code lenses ("N policies affect
-- this") of the server's buffers on attach, on entering a buffer, on leaving insert mode and
-- after every analysis of the workspace (Neovim 0.11 does not honour the server's
-- workspace/codeLens/refresh); virtual_text = true shows policylens's findings at the end of
-- their line (its diagnostics only; false leaves them to your vim.diagnostic.config(), a table
-- is passed to it as the `virtual_text` option); progress = true echoes the server's progress
-- while it reads and analyses the workspace (one line, kept out of :messages);
-- cmd = { 'policylens', 'serve' }.
--
-- Messages from the server are shown on one line, never as a hit-enter prompt (Neovim's own
-- handler for window/showMessage adds a second line, which stops everything until Enter); the
-- details are in :checkhealth policylens and :LspLog.
local M = {}

-- The last `policylens/serverStatus` the server sent (state, roots, counts), for statuslines.
M.last_status = nil

local function client(buf)
  return vim.lsp.get_clients({ bufnr = buf or 0, name = 'policylens' })[1]
    or vim.lsp.get_clients({ name = 'policylens' })[1]
end

local function notify(msg, level)
  vim.notify('policylens: ' .. msg, level or vim.log.levels.INFO)
end

local function float(lines, title)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'yaml'
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  local win = vim.api.nvim_open_win(buf, true, {
    relative = 'cursor',
    row = 1,
    col = 0,
    width = math.min(width, vim.o.columns - 4),
    height = math.min(#lines, math.max(3, vim.o.lines - 6)),
    border = 'rounded',
    title = title,
  })
  vim.keymap.set('n', 'q', function()
    vim.api.nvim_win_close(win, true)
  end, { buffer = buf, nowait = true })
  return buf, win
end

-- One line that fits the command line (`v:echospace`): a longer one, or two, would turn into
-- a hit-enter prompt that holds back everything until Enter.
function M.one_line(msg)
  local line = vim.split(msg, '\n', { plain = true, trimempty = true })[1] or ''
  local room = math.max(vim.v.echospace, 20)
  if vim.fn.strdisplaywidth(line) > room then
    line = vim.fn.strcharpart(line, 0, room - 1) .. '…'
  end
  return line
end

local function notify_line(msg, level)
  vim.schedule(function()
    vim.notify(M.one_line('policylens: ' .. msg), level)
  end)
end

-- window/showMessage, on one line at its level.
local function on_show_message(_, params)
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
  local text = (params.message or ''):gsub('^policylens: ', '')
  notify_line(text, levels[params.type] or vim.log.levels.INFO)
  return vim.NIL
end

function M.explain()
  local c = client()
  if not c then
    return notify('the language server is not running for this buffer', vim.log.levels.WARN)
  end
  local params = vim.lsp.util.make_position_params(0, c.offset_encoding)
  -- The readable report `policylens explain` prints, rendered by the server from the buffers
  -- as they are (unsaved edits included).
  params.format = 'text'
  c:request('policylens/explain', params, function(err, result)
    if err then
      return notify(err.message, vim.log.levels.WARN)
    end
    float(vim.split(result.text, '\n', { trimempty = true }), ' policylens explain ')
  end, 0)
end

-- The quickfix items of a `policylens status` report: policies not accepted or not fully
-- enforced, each with why.
function M.status_items(report)
  local items = {}
  for _, p in ipairs(report.policies or {}) do
    local accepted = p.accepted or {}
    local text
    if not accepted.status then
      text = string.format('%s: not accepted (%s)%s', p.policy, accepted.reason or '?',
        accepted.message and (': ' .. accepted.message) or '')
    elseif p.enforcement ~= 'Enforced' then
      text = string.format('%s: %s', p.policy, p.enforcement)
      if #(p.supersededBy or {}) > 0 then
        text = text .. ' by ' .. table.concat(p.supersededBy, ', ')
      end
    end
    if text then
      local start = (p.range or {}).start or { line = 0, character = 0 }
      items[#items + 1] = {
        filename = p.file,
        lnum = start.line + 1,
        col = start.character + 1,
        text = text,
        type = accepted.status and 'W' or 'E',
      }
    end
  end
  return items
end

function M.status()
  local c = client()
  if not c then
    return notify('the language server is not running', vim.log.levels.WARN)
  end
  c:request('policylens/status', vim.NIL, function(err, result)
    if err then
      return notify(err.message, vim.log.levels.WARN)
    end
    local items = M.status_items(result)
    vim.fn.setqflist({}, ' ', { title = 'policylens status', items = items })
    if #items == 0 then
      return notify('every policy is accepted and enforced')
    end
    vim.cmd('copen')
  end, 0)
end

function M.graph(format)
  local c = client()
  if not c then
    return notify('the language server is not running', vim.log.levels.WARN)
  end
  format = (format ~= nil and format ~= '') and format or 'mermaid'
  c:request('policylens/graph', { format = format }, function(err, result)
    if err then
      return notify(err.message, vim.log.levels.WARN)
    end
    vim.cmd('new')
    local buf = vim.api.nvim_get_current_buf()
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'wipe'
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(result.graph, '\n', { trimempty = true }))
    vim.bo[buf].filetype = result.format == 'dot' and 'dot' or 'mermaid'
    vim.api.nvim_buf_set_name(buf, 'policylens-graph.' .. (result.format == 'dot' and 'dot' or 'mmd'))
  end, 0)
end

-- A read-only scratch buffer in a split holding `text`, named `name`.
local function scratch(name, text, filetype)
  vim.cmd('new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { trimempty = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = filetype
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

-- `policylens/without` with `params` (the policy under a position, or `policies` by
-- reference): the what-if report in a scratch buffer.
local function without(c, params)
  params.format = 'human'
  c:request('policylens/without', params, function(err, result)
    if err then
      return notify(err.message, vim.log.levels.WARN)
    end
    scratch('policylens ' .. result.title, result.text, 'policylens-whatif')
  end, 0)
end

-- :PolicylensWithout [REF...]: the policies named, else the one under the cursor.
function M.without(refs)
  local c = client()
  if not c then
    return notify('the language server is not running for this buffer', vim.log.levels.WARN)
  end
  if refs and #refs > 0 then
    return without(c, { policies = refs })
  end
  without(c, vim.lsp.util.make_position_params(0, c.offset_encoding))
end

-- The code action "Preview removing this policy" names this command; its argument is the
-- request's parameters (the policy's document and position).
vim.lsp.commands['policylens.previewWithout'] = function(command, ctx)
  local c = vim.lsp.get_client_by_id(ctx.client_id)
  local arg = (command.arguments or {})[1]
  if c and arg then
    without(c, { textDocument = arg.textDocument, position = arg.position })
  end
end

-- Asks every buffer the server is attached to for its code lenses again.
local function refresh_lenses(client_id)
  local c = vim.lsp.get_client_by_id(client_id)
  if not c or not c:supports_method('textDocument/codeLens') then
    return
  end
  for buf in pairs(c.attached_buffers) do
    if vim.api.nvim_buf_is_loaded(buf) then
      vim.lsp.codelens.refresh({ bufnr = buf })
    end
  end
end

-- The server's `policylens/serverStatus` notification: kept for statuslines; once it says
-- `ready` (after each analysis of the workspace) the lenses are asked for again. A root guessed
-- without a marker is said once, on one line (the whole note is in :checkhealth policylens).
local told_note = nil
local function on_status(_, result, ctx)
  M.last_status = result
  if result and result.rootNote ~= nil and result.rootNote ~= vim.NIL and result.rootNote ~= told_note then
    told_note = result.rootNote
    local roots = result.roots or {}
    notify_line(('no .policylens.yaml or .git: reading %s (:checkhealth policylens)'):format(
      vim.fn.fnamemodify(roots[#roots] or '?', ':~')), vim.log.levels.INFO)
  end
  if M.codelens and result and result.state == 'ready' then
    refresh_lenses(ctx.client_id)
  end
end

-- The code lens's command (`[uri, position, locations]`): one place is jumped to; several (the
-- policies affecting a target) go to the quickfix list, as `grr` lists references.
local function show_references(command, ctx)
  local args = command.arguments or {}
  local locations = args[3] or {}
  local c = vim.lsp.get_client_by_id(ctx.client_id)
  local encoding = c and c.offset_encoding or 'utf-16'
  if #locations == 1 then
    vim.lsp.util.show_document(locations[1], encoding, { focus = true })
  elseif #locations > 1 then
    local items = vim.lsp.util.locations_to_items(locations, encoding)
    vim.fn.setqflist({}, ' ', { title = command.title or 'policylens', items = items })
    vim.cmd('copen')
  end
end

-- $/progress of the server (reading, then analysing the workspace), echoed on one line and
-- kept out of :messages; cleared when it ends.
local function on_progress(ev)
  local c = vim.lsp.get_client_by_id(ev.data.client_id)
  local value = ev.data.params and ev.data.params.value
  if not c or c.name ~= 'policylens' or type(value) ~= 'table' then
    return
  end
  local text = ''
  if value.kind ~= 'end' then
    text = M.one_line(('%s%s'):format(value.title or c.progress.pending[ev.data.params.token] or 'policylens',
      value.message and (': ' .. value.message) or ''))
  end
  -- Not over a prompt or the command line being typed.
  local mode = vim.api.nvim_get_mode().mode
  if mode:sub(1, 1) ~= 'c' and mode:sub(1, 1) ~= 'r' then
    vim.api.nvim_echo({ { text } }, false, {})
  end
end

function M.setup(opts)
  opts = opts or {}
  local here = debug.getinfo(1, 'S').source:sub(2)
  -- editors/neovim (this plugin's root) holds lsp/policylens.lua for vim.lsp.config.
  vim.opt.runtimepath:append(vim.fn.fnamemodify(here, ':p:h:h:h'))
  M.codelens = opts.codelens ~= false
  vim.lsp.config('policylens', {
    cmd = opts.cmd,
    init_options = { statusNotifications = true },
    handlers = { ['policylens/serverStatus'] = on_status, ['window/showMessage'] = on_show_message },
  })
  -- The code lenses' command, run here instead of by the server (which can show one place only).
  vim.lsp.commands['policylens.showReferences'] = show_references
  vim.lsp.enable('policylens')
  local group = vim.api.nvim_create_augroup('policylens', { clear = true })
  -- Findings at the end of their line, for this server's diagnostics only (Neovim 0.11 shows
  -- none there by default: only an `E` in the sign column).
  local virtual_text = opts.virtual_text == nil and true or opts.virtual_text
  if virtual_text then
    vim.api.nvim_create_autocmd('LspAttach', {
      group = group,
      callback = function(ev)
        local c = vim.lsp.get_client_by_id(ev.data.client_id)
        if c and c.name == 'policylens' then
          local ns = vim.lsp.diagnostic.get_namespace(c.id, false)
          vim.diagnostic.config({ virtual_text = virtual_text }, ns)
        end
      end,
    })
  end
  if opts.progress ~= false then
    vim.api.nvim_create_autocmd('LspProgress', { group = group, callback = on_progress })
  end
  if M.codelens then
    local group = vim.api.nvim_create_augroup('policylens_codelens', { clear = true })
    vim.api.nvim_create_autocmd('LspAttach', {
      group = group,
      callback = function(ev)
        local c = vim.lsp.get_client_by_id(ev.data.client_id)
        if not c or c.name ~= 'policylens' then
          return
        end
        vim.lsp.codelens.refresh({ bufnr = ev.buf })
        vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave' }, {
          group = group,
          buffer = ev.buf,
          callback = function(a)
            if client(a.buf) then
              vim.lsp.codelens.refresh({ bufnr = a.buf })
            end
          end,
        })
      end,
    })
  end
  vim.api.nvim_create_user_command('PolicylensExplain', M.explain, { desc = 'policylens: effective policies here' })
  vim.api.nvim_create_user_command('PolicylensStatus', M.status, { desc = 'policylens: policies not enforced' })
  vim.api.nvim_create_user_command('PolicylensWithout', function(a)
    M.without(a.fargs)
  end, { nargs = '*', desc = 'policylens: what deleting this policy would do' })
  vim.api.nvim_create_user_command('PolicylensGraph', function(a)
    M.graph(a.args)
  end, { nargs = '?', complete = function()
    return { 'mermaid', 'dot' }
  end, desc = 'policylens: topology graph' })
end

return M
