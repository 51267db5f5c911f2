-- policylens language server for Neovim 0.11+: with this directory on 'runtimepath',
-- `vim.lsp.enable('policylens')` finds this file (see :help lsp-config).
return {
  cmd = { 'policylens', 'serve' },
  filetypes = { 'yaml' },
  root_markers = { '.policylens.yaml', '.git' },
}
