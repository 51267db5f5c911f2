-- Real-editor test: headless Neovim 0.11+ with the documented configuration
-- (editors/neovim/policylens.lua, loaded as is) against a copy of fixtures/demo.
--
--   PATH="$PWD/target/debug:$PATH" nvim --headless --clean -n -i NONE \
--     -l tests/nvim/e2e.lua OUT.json [WORKSPACE_DIR]
--
-- `policylens` is found on PATH, exactly as a user's editor would find it. The script copies
-- fixtures/demo into WORKSPACE_DIR (default: a Neovim temp dir), marks it as a repository root
-- with an empty `.git`, drives the editor, and writes what Neovim received to OUT.json. On the
-- first failed check it records the failure in OUT.json and raises an error, so nvim exits 1.
-- Every wait is bounded (`vim.wait` with a timeout); nothing sleeps.
-- server/cli/tests/neovim.rs runs this with the freshly built binary.

local H = dofile(vim.fn.fnamemodify(arg[0], ':p:h') .. '/harness.lua').new(arg[1], arg[0])
local TIMEOUT, repo, results = H.TIMEOUT, H.repo, H.results
local check, wait_for, copy_tree, contains, rel = H.check, H.wait_for, H.copy_tree, H.contains, H.rel
local hover_text, policylens_client, open, diagnostics, codes =
  H.hover_text, H.policylens_client, H.open, H.diagnostics, H.codes

local function main()
  -- The workspace: a copy of the demo repository.
  local ws = arg[2] or vim.fn.tempname()
  copy_tree(repo .. '/fixtures/demo', ws)
  vim.fn.mkdir(ws .. '/.git', 'p')
  results.workspace = vim.uv.fs_realpath(ws)

  -- The documented configuration, unchanged.
  dofile(repo .. '/editors/neovim/policylens.lua')

  -- 1. Diagnostics pushed for a policy file with three of the demo's mistakes.
  local shop, client = open('policies/shop.yaml')
  results.client = { name = client.name, root_dir = client.root_dir, encoding = client.offset_encoding }
  check(client.root_dir == results.workspace, 'root_dir is %s, expected %s', client.root_dir, results.workspace)
  local expected = {
    { line = 34, code = 'section-not-found', text = 'assets', message = 'no rule named `assets`' },
    { line = 51, code = 'target-kind-not-allowed', text = 'HTTPRoute', message = 'cannot target HTTPRoute' },
    { line = 90, code = 'target-not-found', text = 'chekout', message = 'did you mean `checkout`?' },
  }
  wait_for('the diagnostics of policies/shop.yaml', function()
    return #vim.diagnostic.get(shop) >= #expected
  end)
  local diags = diagnostics(shop)
  results.steps.diagnostics = diags
  check(#diags == #expected, 'expected %d diagnostics, got %s', #expected, vim.inspect(codes(diags)))
  for i, want in ipairs(expected) do
    local got = diags[i]
    check(
      got.line == want.line and got.code == want.code and got.text == want.text,
      'diagnostic %d: expected %s at line %d on `%s`, got %s',
      i,
      want.code,
      want.line,
      want.text,
      vim.inspect(got)
    )
    check(got.source == 'policylens', 'diagnostic %d: source %s', i, vim.inspect(got.source))
    check(contains(got.message, want.message), 'diagnostic %d: message %q lacks %q', i, got.message, want.message)
  end

  -- 2. Hover on a ref: line 14 `name: checkout` (with `sectionName: pay`).
  vim.api.nvim_win_set_cursor(0, { 14, 13 })
  vim.lsp.buf.hover()
  local hover = hover_text()
  results.steps.hover_ref = hover
  check(contains(hover, 'rule pay of HTTPRoute shop/checkout'), 'hover on the ref: %q', hover)

  -- 3. Go to definition from the same ref: the rule `pay` in shop/routes.yaml.
  vim.lsp.buf.definition()
  wait_for('the definition jump', function()
    return vim.api.nvim_get_current_buf() ~= shop
  end)
  local pos = vim.api.nvim_win_get_cursor(0)
  local routes = vim.api.nvim_get_current_buf()
  results.steps.definition = { file = rel(vim.api.nvim_buf_get_name(routes)), line = pos[1], col = pos[2] + 1 }
  check(
    results.steps.definition.file == 'shop/routes.yaml' and pos[1] == 55 and pos[2] == 12,
    'definition landed on %s',
    vim.inspect(results.steps.definition)
  )
  check(
    vim.api.nvim_get_current_line():sub(pos[2] + 1) == 'pay',
    'definition line: %q',
    vim.api.nvim_get_current_line()
  )

  -- 4. Hover on a target: HTTPRoute shop/checkout's metadata.name (line 37). The demo's own
  --    AuthPolicy for it is broken (mistake #1), so the edge default reaches it.
  policylens_client(routes)
  vim.api.nvim_win_set_cursor(0, { 37, 10 })
  vim.lsp.buf.hover()
  hover = hover_text()
  results.steps.hover_target = hover
  for _, want in ipairs({ 'HTTPRoute shop/checkout', 'AuthPolicy.kuadrant.io', 'infra/edge-auth' }) do
    check(contains(hover, want), 'hover on the target lacks %q: %q', want, hover)
  end

  -- 5. Completion of a Gateway ref's sectionName: the listeners of Gateway infra/edge, in
  --    their order. The value is cleared first, as a user retyping it would.
  local edge, edge_client = open('policies/edge.yaml')
  check(vim.api.nvim_buf_get_lines(edge, 18, 19, true)[1] == '      sectionName: https', 'edge.yaml line 19 moved')
  vim.api.nvim_buf_set_text(edge, 18, 19, 18, 24, { '' })
  vim.api.nvim_win_set_cursor(0, { 19, 19 })
  local params = vim.lsp.util.make_position_params(0, edge_client.offset_encoding)
  local response = edge_client:request_sync('textDocument/completion', params, TIMEOUT, edge)
  check(response and response.err == nil and response.result, 'completion failed: %s', vim.inspect(response))
  local items = response.result.items or response.result
  -- Neovim's completion menu orders items by sortText, falling back to the label.
  table.sort(items, function(a, b)
    return (a.sortText or a.label) < (b.sortText or b.label)
  end)
  local labels = vim.tbl_map(function(item)
    return item.label
  end, items)
  results.steps.completion = labels
  check(
    vim.deep_equal(labels, { 'http', 'https', 'admin' }),
    'sectionName completion: %s',
    vim.inspect(labels)
  )

  -- 6. Typing: fix the typo `chekout` -> `checkout` in shop.yaml; target-not-found goes away
  --    and the other two stay.
  vim.api.nvim_set_current_buf(shop)
  vim.api.nvim_buf_set_text(shop, 89, 13, 89, 13, { 'c' })
  check(vim.api.nvim_buf_get_lines(shop, 89, 90, true)[1] == '    name: checkout', 'the edit went wrong')
  wait_for('target-not-found to clear after the edit', function()
    return not vim.tbl_contains(codes(diagnostics(shop)), 'target-not-found')
  end)
  local after = diagnostics(shop)
  results.steps.after_edit = after
  check(
    vim.deep_equal(codes(after), { 'section-not-found', 'target-kind-not-allowed' }),
    'after the edit: %s',
    vim.inspect(codes(after))
  )

  -- 7. The plugin's commands (editors/neovim/lua/policylens): explain the route under the
  --    cursor in a floating window (its own AuthPolicy now applies: the typo was fixed in step
  --    6), list unenforced policies in quickfix, draw the graph.
  vim.opt.runtimepath:append(repo .. '/editors/neovim')
  require('policylens').setup()
  vim.api.nvim_buf_call(shop, function()
    vim.cmd('silent write')
  end)
  vim.api.nvim_set_current_buf(routes)
  vim.api.nvim_win_set_cursor(0, { 37, 10 })
  local wins_before = #vim.api.nvim_list_wins()
  vim.cmd('PolicylensExplain')
  local explain_win = H.float_win('the explain window')
  local explain = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(explain_win), 0, -1, false)
  results.steps.explain = explain
  -- Exactly what `policylens explain` prints for the route (the typo's fix was saved above).
  local cli = vim.system({ 'policylens', 'explain', '--target', 'HTTPRoute/shop/checkout', '--color', 'never',
    results.workspace }, { text = true }):wait()
  check(cli.code == 0, 'policylens explain: %s', vim.inspect(cli))
  check(vim.deep_equal(explain, vim.split(cli.stdout, '\n', { trimempty = true })), 'explain window %s\nCLI %s',
    table.concat(explain, '\n'), cli.stdout)
  local joined = table.concat(explain, '\n')
  for _, want in ipairs({ 'AuthPolicy.kuadrant.io', 'path: GatewayClass/eg > Gateway/infra/edge', '# shop/checkout-auth · AtomicDefaults', 'shop/checkout-auth' }) do
    check(contains(joined, want), 'explain lacks %q: %s', want, joined)
  end
  vim.api.nvim_win_close(explain_win, true)
  check(#vim.api.nvim_list_wins() == wins_before, 'the explain window did not close')

  -- On a policy, the explanation of what it targets (before: "no policy reaches it"): the
  -- name of BackendTrafficPolicy shop/checkout-pay (policies/shop.yaml line 7) explains
  -- `HTTPRoute/shop/checkout#pay`.
  vim.api.nvim_set_current_buf(shop)
  vim.api.nvim_win_set_cursor(0, { 7, 9 })
  vim.cmd('PolicylensExplain')
  explain_win = H.float_win('the explain window on a policy')
  explain = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(explain_win), 0, -1, false)
  results.steps.explain_policy = explain
  cli = vim.system({ 'policylens', 'explain', '--target', 'HTTPRoute/shop/checkout#pay', '--color', 'never',
    results.workspace }, { text = true }):wait()
  check(vim.deep_equal(explain, vim.split(cli.stdout, '\n', { trimempty = true })), 'explain on a policy %s\nCLI %s',
    table.concat(explain, '\n'), cli.stdout)
  vim.api.nvim_win_close(explain_win, true)

  -- The code lens of a target several policies affect runs the plugin's command: the
  -- policies in the quickfix list (before: a jump to the first only). HTTPRoute checkout
  -- (its document starts on shop/routes.yaml line 34).
  vim.api.nvim_set_current_buf(routes)
  vim.lsp.codelens.refresh({ bufnr = routes })
  local lens
  wait_for('the code lens of HTTPRoute checkout', function()
    for _, l in ipairs(vim.lsp.codelens.get(routes)) do
      if l.range.start.line == 33 and l.command then
        lens = l
      end
    end
    return lens ~= nil
  end)
  local n = tonumber(lens.command.title:match('^(%d+) policies affect this'))
  check(n and n > 1, 'the lens: %q', lens.command.title)
  vim.fn.setqflist({}, 'r')
  local lens_client = policylens_client(routes)
  lens_client:exec_cmd(lens.command, { bufnr = routes })
  local listed = vim.tbl_map(function(item)
    return rel(vim.api.nvim_buf_get_name(item.bufnr)) .. ':' .. item.lnum
  end, vim.fn.getqflist())
  results.steps.lens_list = { title = lens.command.title, items = listed }
  check(#listed == n, 'the lens lists %d places for %q: %s', #listed, lens.command.title, vim.inspect(listed))
  vim.cmd('cclose')
  vim.fn.setqflist({}, 'f')

  vim.cmd('PolicylensStatus')
  wait_for('the quickfix list', function()
    return #vim.fn.getqflist() > 0
  end)
  local qf = vim.tbl_map(function(item)
    return item.text
  end, vim.fn.getqflist())
  results.steps.status = qf
  check(vim.tbl_contains(qf, 'BackendTrafficPolicy.gateway.envoyproxy.io/shop/storefront-static: not accepted (TargetNotFound): no target resolves: HTTPRoute/shop/storefront has no rule `assets`'),
    'status quickfix: %s', vim.inspect(qf))
  vim.cmd('cclose')

  vim.cmd('PolicylensGraph mermaid')
  wait_for('the graph buffer', function()
    return vim.bo.filetype == 'mermaid'
  end)
  local graph = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  results.steps.graph = { first = graph[1], lines = #graph }
  check(graph[1] == 'graph LR' and #graph > 10, 'graph buffer: %s', vim.inspect(results.steps.graph))

  -- 8. What deleting a policy would do (issue 41): `:PolicylensWithout` on the name of
  --    BackendTrafficPolicy infra/edge-backend-defaults (policies/edge.yaml line 34) opens a
  --    read-only scratch buffer holding `policylens diff --without`'s report word for word (the
  --    editor's side is called `workspace`, the CLI's `working tree`), its paths relative to the
  --    workspace; the code action "Preview removing this policy" opens the same report.
  vim.api.nvim_set_current_buf(edge)
  vim.cmd('silent edit!') -- step 5's unsaved edit undone: the editor and the disk agree
  check(vim.api.nvim_buf_get_lines(edge, 33, 34, true)[1] == '  name: edge-backend-defaults', 'edge.yaml line 34 moved')
  vim.api.nvim_win_set_cursor(0, { 34, 8 })
  local function whatif_buffer(what, run)
    local before = vim.api.nvim_get_current_buf()
    run()
    wait_for(what, function()
      return vim.api.nvim_get_current_buf() ~= before and vim.bo.filetype == 'policylens-whatif'
    end)
    local buf = vim.api.nvim_get_current_buf()
    local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    local shape = { modifiable = vim.bo[buf].modifiable, buftype = vim.bo[buf].buftype,
      name = vim.fn.bufname(buf) }
    vim.api.nvim_win_close(0, true)
    return lines, shape
  end
  local report, shape = whatif_buffer('the :PolicylensWithout buffer', function()
    vim.cmd('PolicylensWithout')
  end)
  results.steps.without = report
  local ref = 'BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-backend-defaults'
  check(vim.deep_equal(shape, { modifiable = false, buftype = 'nofile', name = 'policylens without ' .. ref }),
    'the report buffer: %s', vim.inspect(shape))
  cli = vim.system({ 'policylens', 'diff', '--without', 'BackendTrafficPolicy/infra/edge-backend-defaults' },
    { cwd = results.workspace, text = true }):wait()
  check(cli.code == 0, 'policylens diff --without: %s', vim.inspect(cli))
  local want = vim.split(cli.stdout, '\n', { trimempty = true })
  want[1] = want[1]:gsub('^working tree → ', 'workspace → ')
  check(vim.deep_equal(report, want), ':PolicylensWithout %s\nCLI %s', table.concat(report, '\n'),
    table.concat(want, '\n'))
  check(report[1] == 'workspace → without ' .. ref .. ": 3 targets' effective policies change, 1 policy change"
    .. ' status, 0 findings introduced, 1 finding fixed', 'the report begins %q', report[1])
  check(vim.tbl_contains(report, '  policies/edge.yaml:34: information[partially-overridden]: `' .. ref
    .. '` is superseded in part by `BackendTrafficPolicy.gateway.envoyproxy.io/shop/checkout-pay`: on'
    .. ' `HTTPRoute/shop/checkout#pay`, its whole spec; it is still in effect on 3 of the 4 effective targets'
    .. ' it reaches'), 'the fixed finding (a path relative to the workspace): %s', table.concat(report, '\n'))

  local edge_client = policylens_client(edge)
  local range = vim.lsp.util.make_range_params(0, edge_client.offset_encoding)
  range.context = { diagnostics = {} }
  local actions = edge_client:request_sync('textDocument/codeAction', range, TIMEOUT, edge)
  check(actions and actions.err == nil, 'code actions failed: %s', vim.inspect(actions))
  local preview
  for _, a in ipairs(actions.result or {}) do
    if a.title == 'Preview removing this policy' then
      preview = a
    end
  end
  check(preview and preview.command and preview.command.command == 'policylens.previewWithout',
    'no preview action among %s', vim.inspect(actions.result))
  local from_action = whatif_buffer('the preview of the code action', function()
    edge_client:exec_cmd(preview.command, { bufnr = edge })
  end)
  check(vim.deep_equal(from_action, report), 'the code action opened %s', table.concat(from_action, '\n'))

  -- 9. Shut the server down the way Neovim does (shutdown, exit).
  client:stop()
  wait_for('the server to stop', function()
    return client:is_stopped()
  end)
end

H.run('policylens nvim e2e', main)
