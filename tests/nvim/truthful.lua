-- Real-editor test of issue 33's situations, in headless Neovim 0.11 with the plugin
-- (editors/neovim, `require('policylens').setup()`) on a copy of fixtures/demo WITHOUT `.git`
-- or its `.policylens.yaml`, Neovim started in that copy (server/cli/tests/neovim.rs sets
-- POLICYLENS_TEST_INDEX_DELAY_MS so that indexing lasts 1.5 s):
--   1. a hover sent while the workspace is indexed answers as the settled server does;
--   4. the root is the editor's working directory (no root marker: Neovim names no folder),
--      said on one line and in full in :checkhealth policylens; no false target-not-found;
--   2. renaming a route in one buffer updates another open buffer's diagnostics;
--   3. a file written on disk from outside the editor is seen;
--   5. completion inside a comment offers nothing;
--   and the plugin's code lenses are there after the analysis, refreshed by the plugin.
--
--   nvim --headless --clean -n -i NONE -l tests/nvim/truthful.lua OUT.json WORKSPACE_DIR
local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/harness.lua').new(arg[1], arg[0])
local results, check, wait_for = H.results, H.check, H.wait_for

local function request(client, buf, method, line, character)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = character },
  }
  local resp = client:request_sync(method, params, H.TIMEOUT, buf)
  check(resp and resp.err == nil, '%s failed: %s', method, vim.inspect(resp))
  return resp.result
end

local function main()
  local ws = arg[2]
  H.copy_tree(H.repo .. '/fixtures/demo', ws)
  -- A copied example with no root marker: the demo's config (its marker) left out.
  assert(os.remove(ws .. '/.policylens.yaml'))
  results.workspace = vim.uv.fs_realpath(ws)
  check(vim.uv.cwd() == results.workspace, 'Neovim runs in %s, not the workspace', vim.uv.cwd())

  vim.opt.runtimepath:append(H.repo .. '/editors/neovim')
  require('policylens').setup()

  -- 1. While indexing: hover on the route, sent right after the server attached.
  local routes, client = H.open('shop/routes.yaml')
  check(client.root_dir == nil, 'root_dir %s: the test needs a folder-less client', tostring(client.root_dir))
  local hover = request(client, routes, 'textDocument/hover', 36, 9)
  local text = hover and hover.contents and hover.contents.value or ''
  results.steps.hover_while_indexing = text
  check(H.contains(text, 'infra/edge-auth') and not H.contains(text, 'No policies reach it'), 'hover: %s', text)

  -- 4. The root: the editor's working directory, and the user is told.
  local shop = H.open('policies/shop.yaml')
  wait_for('the diagnostics of policies/shop.yaml', function()
    return #vim.diagnostic.get(shop) >= 3
  end)
  vim.wait(300)
  local codes = H.codes(H.diagnostics(shop))
  results.steps.diagnostics = codes
  check(vim.deep_equal(codes, { 'section-not-found', 'target-kind-not-allowed', 'target-not-found' }), 'diagnostics: %s',
    vim.inspect(codes))
  -- Said on one line (the plugin's; never a prompt), in full in :checkhealth policylens.
  local messages = vim.fn.execute('messages')
  check(H.contains(messages, 'policylens: no .policylens.yaml or .git: reading '), 'messages: %s', messages)
  local note = 'no .policylens.yaml or .git above ' .. results.workspace .. '/shop/routes.yaml: reading '
    .. results.workspace .. " (the editor's working directory) as the workspace root"
  vim.cmd('checkhealth policylens')
  local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  results.steps.health = health
  for _, want in ipairs({ 'binary: ', 'version: policylens ', 'state: ready', 'root: ' .. results.workspace,
    'root chosen as a fallback: ' .. note, 'config: none', 'cluster: off' }) do
    check(H.contains(health, want), 'checkhealth lacks %q:\n%s', want, health)
  end
  vim.cmd('bwipeout')

  -- Lenses: asked for again by the plugin once the analysis is done.
  vim.api.nvim_set_current_buf(routes)
  wait_for('the code lenses of shop/routes.yaml', function()
    return #vim.lsp.codelens.get(routes) > 0
  end)
  local lenses = vim.tbl_map(function(l)
    return { line = l.range.start.line + 1, title = l.command and l.command.title }
  end, vim.lsp.codelens.get(routes))
  table.sort(lenses, function(a, b)
    return a.line < b.line
  end)
  results.steps.lenses = lenses
  check(lenses[1] and lenses[1].title and H.contains(lenses[1].title, 'affect'), 'lenses: %s', vim.inspect(lenses))

  -- 2. Rename route `checkout` in shop/routes.yaml: policies/shop.yaml, open but not edited,
  --    now has its targetRef to `checkout` (line 14) broken.
  check(vim.api.nvim_buf_get_lines(routes, 36, 37, true)[1] == '  name: checkout', 'routes.yaml line 37 moved')
  vim.api.nvim_buf_set_text(routes, 36, 16, 36, 16, { '-v2' })
  wait_for('policies/shop.yaml to show the renamed route as missing', function()
    return vim.tbl_contains(
      vim.tbl_map(function(d)
        return d.line
      end, H.diagnostics(shop)),
      14
    )
  end)
  results.steps.after_rename = H.codes(H.diagnostics(shop))

  -- 3. A file written from outside the editor: HTTPRoute `chekout` now exists, so the typo's
  --    target-not-found on line 90 goes away.
  local f = assert(io.open(results.workspace .. '/shop/extra.yaml', 'w'))
  f:write('apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: chekout\n  namespace: shop\n')
  f:close()
  wait_for('the file written on disk to resolve line 90', function()
    for _, d in ipairs(H.diagnostics(shop)) do
      if d.line == 90 then
        return false
      end
    end
    return true
  end)
  results.steps.after_disk_write = H.codes(H.diagnostics(shop))

  -- 5. Completion inside the comment on line 1 (`# shop team policies ...`) offers nothing.
  check(vim.startswith(vim.api.nvim_buf_get_lines(shop, 0, 1, true)[1], '# shop team'), 'shop.yaml line 1 moved')
  local items = request(client, shop, 'textDocument/completion', 0, 7)
  items = items and (items.items or items) or {}
  results.steps.completion_in_comment = #items
  check(#items == 0, 'completion in a comment: %s', vim.inspect(items))

  client:stop()
  wait_for('the server to stop', function()
    return client:is_stopped()
  end)
end

H.run('policylens nvim truthful', main)
