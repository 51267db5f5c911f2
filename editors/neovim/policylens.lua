-- policylens for Neovim 0.11+ (https://neovim.io/doc/user/lsp.html#lsp-config).
-- Copy this into your init.lua, or save it as ~/.config/nvim/plugin/policylens.lua.
-- `policylens` must be on your PATH (cargo install --path server/cli).
vim.lsp.config('policylens', {
  cmd = { 'policylens', 'serve' },
  filetypes = { 'yaml' },
  root_markers = { '.policylens.yaml', '.git' },
})
vim.lsp.enable('policylens')
