-- What the headless Neovim tests share: bounded waits, checks that record the first failure
-- in OUT.json, a demo workspace copied to a temp dir, and the editor-side reads (hover window,
-- diagnostics). `dofile` it with the results path; see e2e.lua and truthful.lua.
local H = {}

H.TIMEOUT = 20000 -- ms; generous for a debug build on a busy machine

function H.new(out_path, script)
  assert(out_path and out_path ~= '', 'usage: nvim --headless --clean -l SCRIPT OUT.json [WORKSPACE_DIR]')
  H.out_path = out_path
  H.repo = vim.fn.fnamemodify(script, ':p:h:h:h')
  H.results = { nvim = tostring(vim.version()), steps = {} }
  return H
end

function H.fail(fmt, ...)
  error(string.format(fmt, ...), 0)
end

function H.check(cond, fmt, ...)
  if not cond then
    H.fail(fmt, ...)
  end
end

function H.wait_for(what, cond)
  if not vim.wait(H.TIMEOUT, cond, 10) then
    H.fail('timed out after %d ms waiting for %s', H.TIMEOUT, what)
  end
end

function H.copy_tree(from, to)
  vim.fn.mkdir(to, 'p')
  for name, kind in vim.fs.dir(from, { depth = math.huge }) do
    local src, dst = from .. '/' .. name, to .. '/' .. name
    if kind == 'directory' then
      vim.fn.mkdir(dst, 'p')
    else
      vim.fn.mkdir(vim.fs.dirname(dst), 'p')
      assert(vim.uv.fs_copyfile(src, dst))
    end
  end
end

function H.contains(haystack, needle)
  return haystack:find(needle, 1, true) ~= nil
end

function H.rel(path)
  return path:sub(#H.results.workspace + 2)
end

-- The first floating window (a hover, the explain window) once one is open.
function H.float_win(what)
  local win
  H.wait_for(what, function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= '' then
        win = w
        return true
      end
    end
    return false
  end)
  return win
end

-- The floating window opened by vim.lsp.buf.hover(), as text.
function H.hover_text()
  local win = H.float_win('the hover window')
  local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
  vim.api.nvim_win_close(win, true)
  return table.concat(lines, '\n')
end

function H.policylens_client(buf)
  local client
  H.wait_for('policylens to attach to ' .. vim.api.nvim_buf_get_name(buf), function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'policylens' })[1]
    return client ~= nil and client.initialized == true
  end)
  return client
end

function H.open(relpath)
  vim.cmd.edit(vim.fn.fnameescape(H.results.workspace .. '/' .. relpath))
  local buf = vim.api.nvim_get_current_buf()
  H.check(vim.bo[buf].filetype == 'yaml', '%s: filetype is %q, not yaml', relpath, vim.bo[buf].filetype)
  return buf, H.policylens_client(buf)
end

function H.diagnostics(buf)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local text = vim.api.nvim_buf_get_text(buf, d.lnum, d.col, d.end_lnum, d.end_col, {})
    list[#list + 1] = {
      line = d.lnum + 1,
      col = d.col + 1,
      code = d.code,
      severity = vim.diagnostic.severity[d.severity],
      source = d.source,
      message = d.message,
      text = table.concat(text, '\n'),
    }
  end
  table.sort(list, function(a, b)
    return a.line < b.line or (a.line == b.line and a.col < b.col)
  end)
  return list
end

function H.codes(list)
  return vim.tbl_map(function(d)
    return d.code
  end, list)
end

-- Runs `main`, writes OUT.json, and exits non-zero (an error) on a failed check.
function H.run(name, main)
  local ok, err = pcall(main)
  H.results.ok = ok
  if not ok then
    H.results.error = tostring(err)
  end
  local f = assert(io.open(H.out_path, 'w'))
  f:write(vim.json.encode(H.results))
  f:close()
  if not ok then
    error(name .. ': ' .. tostring(err), 0)
  end
  print(name .. ': ok')
end

return H
