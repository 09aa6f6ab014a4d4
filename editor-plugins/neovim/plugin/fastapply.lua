-- User commands; the server itself is registered by require('fastapply').setup() (or on first use).
if vim.g.loaded_fastapply then
  return
end
vim.g.loaded_fastapply = true

vim.api.nvim_create_user_command('FastApply', function(args)
  require('fastapply').apply(args.args)
end, { nargs = '?', desc = 'Fast Apply: merge the snippet in a register (default: clipboard) into this buffer' })

vim.api.nvim_create_user_command('FastApplyPreview', function(args)
  require('fastapply').preview(args.args)
end, { nargs = '?', desc = 'Fast Apply: show the merge of a register snippet as a diff, without applying it' })
