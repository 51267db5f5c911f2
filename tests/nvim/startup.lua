-- The first minute in Neovim with a screen (issue 39 §1, §2, §6): a headless Neovim cannot show
-- a hit-enter prompt, so this script starts another Neovim with `--embed`, attaches a UI to it
-- over msgpack-RPC (80x24, as a terminal would) and drives it from here, checking its mode
-- every few milliseconds from startup on: a "Press ENTER" prompt (mode `r`) anywhere fails the
-- test. Two starts, each `nvim FILE` with the plugin set up in init.lua, as a user's:
--   A. the demo without `.git` or `.policylens.yaml`, Neovim started in it: the root is a guess
--      (the working directory); its notice is one line, no prompt; the diagnostics show up
--      without a key pressed, as virtual text too; the indexing progress is drawn on the
--      command line; `vim.v.errmsg` stays empty.
--   B. the demo with its `.policylens.yaml`, the client's root set to its `shop/` folder (a
--      user's root_dir): the server reads the whole demo, so shop/routes.yaml has only its own
--      finding (no false target-not-found), and :checkhealth policylens says which root and why.
--
--   nvim --headless --clean -n -i NONE -l tests/nvim/startup.lua OUT.json WORKSPACE_DIR
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/harness.lua').new(arg[1], arg[0])
local results, check = H.results, H.check

local ROWS, COLS = 24, 80

-- A Neovim child with a UI attached: `request` waits for an answer (nil on timeout, as when a
-- prompt blocks it), `mode()` is answered even while blocked.
local function embed(cwd, init, file)
  local child = { responses = {}, next_id = 0, rows = {}, prompts = {}, seen = {} }
  local stdin, stdout, stderr = vim.uv.new_pipe(false), vim.uv.new_pipe(false), vim.uv.new_pipe(false)
  local args = { '--embed', '-n', '-i', 'NONE', '-u', init, file }
  child.handle = vim.uv.spawn(vim.v.progpath, { args = args, cwd = cwd, stdio = { stdin, stdout, stderr } }, function() end)
  assert(child.handle, 'cannot start the embedded Neovim')
  stderr:read_start(function() end)
  local buf, unpack = '', vim.mpack.Unpacker()
  -- The grid as drawn (`grid_line` events of ext_linegrid), to see what the command line showed.
  -- (Plain Lua only: this runs in a libuv callback, where Vimscript functions may not.)
  local function row_text(row)
    local cells = child.rows[row] or {}
    local out = {}
    for c = 1, COLS do
      out[c] = cells[c] or ' '
    end
    return (table.concat(out):gsub('%s+$', ''))
  end
  child.row_text = row_text
  local function draw(ev)
    for i = 2, #ev do
      local row, col, cells = ev[i][2], ev[i][3], ev[i][4]
      child.rows[row] = child.rows[row] or {}
      for _, cell in ipairs(cells) do
        for _ = 1, (cell[3] or 1) do
          child.rows[row][col + 1] = cell[1]
          col = col + 1
        end
      end
    end
  end
  stdout:read_start(function(_, data)
    if not data then
      return
    end
    buf = buf .. data
    local pos = 1
    while pos <= #buf do
      local obj, nextpos = unpack(buf, pos)
      if obj == nil then
        break
      end
      pos = nextpos
      if obj[1] == 1 then
        child.responses[obj[2]] = { err = obj[3], result = obj[4] }
      elseif obj[1] == 2 and obj[2] == 'redraw' then
        for _, ev in ipairs(obj[3]) do
          if ev[1] == 'grid_line' then
            draw(ev)
          elseif ev[1] == 'flush' then
            local last = row_text(ROWS - 1)
            if last ~= '' and child.seen[#child.seen] ~= last then
              child.seen[#child.seen + 1] = last
            end
          end
        end
      end
    end
    buf = buf:sub(pos)
  end)
  function child.request(method, params, timeout)
    child.next_id = child.next_id + 1
    local id = child.next_id
    stdin:write(vim.mpack.encode({ 0, id, method, params or {} }))
    vim.wait(timeout or 2000, function()
      return child.responses[id] ~= nil
    end, 5)
    local r = child.responses[id]
    child.responses[id] = nil
    return r
  end
  function child.mode()
    local r = child.request('nvim_get_mode', {}, 5000)
    return r and r.result and r.result.mode or '?'
  end
  -- Runs Lua in the child once it is not at a prompt; `nil` when it is.
  function child.lua(code, ...)
    local m = child.mode()
    if m:sub(1, 1) == 'r' then
      child.prompts[#child.prompts + 1] = m
      return nil
    end
    local r = child.request('nvim_exec_lua', { code, { ... } }, H.TIMEOUT)
    check(r and r.err == vim.NIL, 'in the embedded Neovim: %s', vim.inspect(r and r.err))
    return r.result
  end
  -- Polls until `cond_code` (Lua returning a boolean) holds, failing on any prompt meanwhile.
  function child.wait_for(what, cond_code)
    local ok = vim.wait(H.TIMEOUT, function()
      local m = child.mode()
      if m:sub(1, 1) == 'r' then
        child.prompts[#child.prompts + 1] = m
        return true
      end
      return child.lua(cond_code) == true
    end, 20)
    check(#child.prompts == 0, 'a hit-enter prompt (mode %s) while waiting for %s; screen:\n%s', child.prompts[1] or '',
      what, child.screen())
    check(ok, 'timed out waiting for %s; screen:\n%s', what, child.screen())
  end
  -- Keeps checking the mode for `ms`.
  function child.watch(ms)
    vim.wait(ms, function()
      local m = child.mode()
      if m:sub(1, 1) == 'r' then
        child.prompts[#child.prompts + 1] = m
        return true
      end
      return false
    end, 20)
    check(#child.prompts == 0, 'a hit-enter prompt (mode %s); screen:\n%s', child.prompts[1] or '', child.screen())
  end
  function child.screen()
    local lines = {}
    for r = 0, ROWS - 1 do
      lines[#lines + 1] = row_text(r)
    end
    return table.concat(lines, '\n')
  end
  function child.quit()
    stdin:write(vim.mpack.encode({ 2, 'nvim_command', { 'qa!' } }))
    vim.wait(5000, function()
      return not child.handle:is_active()
    end, 20)
  end
  -- Startup waits for the UI.
  local attached = child.request('nvim_ui_attach', { COLS, ROWS, { ext_linegrid = true } }, H.TIMEOUT)
  check(attached and attached.err == vim.NIL, 'nvim_ui_attach: %s', vim.inspect(attached))
  return child
end

local function write(path, text)
  local f = assert(io.open(path, 'w'))
  f:write(text)
  f:close()
end

local function main()
  local ws = arg[2]
  H.copy_tree(H.repo .. '/fixtures/demo', ws)
  results.workspace = vim.uv.fs_realpath(ws)
  local plugin = H.repo .. '/editors/neovim'
  local init = vim.fn.tempname() .. '.lua'
  write(init, ('vim.opt.runtimepath:append(%q)\nrequire("policylens").setup()\n'):format(plugin))

  -- A. No root marker: the root is guessed; said on one line.
  assert(os.rename(ws .. '/.policylens.yaml', ws .. '/policylens.yaml.off'))
  local a = embed(results.workspace, init, 'policies/shop.yaml')
  a.wait_for('three diagnostics in policies/shop.yaml', 'return #vim.diagnostic.get(0) == 3')
  -- Lenses, the ready status, anything else that arrives after: still no prompt.
  a.watch(1500)
  local got = a.lua([[
    local c = vim.lsp.get_clients({ name = 'policylens' })[1]
    -- The virtual texts vim.diagnostic drew for policylens's diagnostics (its own namespace).
    local ns = vim.diagnostic.get_namespace(vim.lsp.diagnostic.get_namespace(c.id, false))
    local vt = ns.user_data.virt_text_ns
    local virtual = vt and #vim.api.nvim_buf_get_extmarks(0, vt, 0, -1, {}) or 0
    local codes = {}
    for _, d in ipairs(vim.diagnostic.get(0)) do codes[#codes + 1] = d.code end
    table.sort(codes)
    return { errmsg = vim.v.errmsg, messages = vim.fn.execute('messages'), virtual = virtual, codes = codes,
      root = c and c.root_dir or vim.NIL, mode = vim.api.nvim_get_mode().mode }
  ]])
  results.steps.guessed_root = { messages = got.messages, virtual = got.virtual, codes = got.codes, seen = a.seen }
  check(got.errmsg == '', 'v:errmsg: %s', got.errmsg)
  check(vim.deep_equal(got.codes, { 'section-not-found', 'target-kind-not-allowed', 'target-not-found' }), 'codes: %s',
    vim.inspect(got.codes))
  check(got.virtual == 3, 'virtual texts: %d (screen:\n%s)', got.virtual, a.screen())
  -- (Neovim's own `"policies/shop.yaml" 100L, 2614B` is there too.)
  local notes = vim.tbl_filter(function(l)
    return vim.startswith(l, 'policylens')
  end, vim.split(got.messages, '\n'))
  check(#notes == 1, ':messages holds %d lines: %s', #notes, got.messages)
  local want = 'policylens: no .policylens.yaml or .git: reading '
  check(vim.startswith(notes[1], want), 'the note: %q', notes[1])
  check(vim.fn.strdisplaywidth(notes[1]) < COLS, 'the note is wider than the screen: %q', notes[1])
  local progress = vim.tbl_filter(function(l)
    return vim.startswith(l, 'policylens: indexing')
  end, a.seen)
  check(#progress > 0, 'the progress never showed on the command line; it showed: %s', vim.inspect(a.seen))
  a.quit()
  assert(os.rename(ws .. '/policylens.yaml.off', ws .. '/.policylens.yaml'))

  -- B. The client's root is the `shop/` folder; the server reads the demo above it.
  write(init, ('vim.opt.runtimepath:append(%q)\nrequire("policylens").setup()\n'
    .. 'vim.lsp.config("policylens", { root_dir = %q })\n'):format(plugin, results.workspace .. '/shop'))
  local b = embed(results.workspace, init, 'shop/routes.yaml')
  b.wait_for('the diagnostics of shop/routes.yaml', 'return #vim.diagnostic.get(0) > 0')
  b.watch(1500)
  local sub = b.lua([[
    local codes = {}
    for _, d in ipairs(vim.diagnostic.get(0)) do codes[#codes + 1] = d.code end
    local c = vim.lsp.get_clients({ name = 'policylens' })[1]
    vim.cmd('checkhealth policylens')
    local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    return { codes = codes, root = c.root_dir, health = health, errmsg = vim.v.errmsg }
  ]])
  results.steps.subfolder = sub
  check(sub.root == results.workspace .. '/shop', 'the client root is %s', sub.root)
  check(vim.deep_equal(sub.codes, { 'backend-not-permitted' }), 'shop/routes.yaml: %s', vim.inspect(sub.codes))
  local reason = 'root: ' .. results.workspace .. ' (its .policylens.yaml is the nearest above the workspace folder '
    .. results.workspace .. '/shop)'
  check(H.contains(sub.health, reason), 'checkhealth lacks %q:\n%s', reason, sub.health)
  check(sub.errmsg == '', 'v:errmsg: %s', sub.errmsg)
  b.quit()
end

H.run('policylens nvim startup', main)
