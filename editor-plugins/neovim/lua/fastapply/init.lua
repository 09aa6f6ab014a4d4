-- fastapply.nvim: apply an AI edit snippet to the current buffer through `fastapply lsp`.
--
-- The language server merges the snippet into the text Neovim has synced (unsaved changes
-- included) and sends the change back as minimal TextEdits via workspace/applyEdit, which Neovim
-- applies itself; an ambiguous merge arrives as window/showMessage and changes nothing.
-- Needs Neovim >= 0.11 (vim.lsp.config / vim.lsp.enable).

local M = {}

local NAME = 'fastapply'

---@class fastapply.Settings
---@field engine? 'auto'|'structural'|'model'
---@field model? string  alias, HF directory or .gguf file; nil = structural merge only
---@field device? 'auto'|'cpu'|'cuda'
---@field serverUrl? string  a running `fastapply serve`, e.g. 'http://127.0.0.1:8000'
---@field apiKey? string  its bearer token (`serve --api-key-env`); else $FASTAPPLY_API_KEY

---@class fastapply.Options
---@field cmd? string[]  how to start the server (default: { 'fastapply', 'lsp' })
---@field settings? fastapply.Settings
---@field filetypes? string[]  attach only to these (default: every file buffer)
---@field capabilities? table  extra client capabilities (e.g. a forced position encoding)
---@field timeout_ms? integer  how long a command waits for the server to start

M.options = {
  cmd = { 'fastapply', 'lsp' },
  settings = {},
  filetypes = nil,
  capabilities = nil,
  timeout_ms = 10000,
}

---Register the `fastapply` server with vim.lsp.config and enable it.
---@param opts? fastapply.Options
function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', M.options, opts or {})
  vim.lsp.config(NAME, {
    cmd = M.options.cmd,
    filetypes = M.options.filetypes,
    root_markers = { '.git' },
    capabilities = M.options.capabilities,
    init_options = { fastApply = M.options.settings },
    settings = { fastApply = M.options.settings },
  })
  vim.lsp.enable(NAME)
  M.configured = true
end

---The register a snippet comes from: the one given, else the clipboard, else the unnamed register.
---@param register? string
---@return string
function M.default_register(register)
  if register and register ~= '' then
    return register
  end
  return vim.fn.has('clipboard') == 1 and '+' or '"'
end

---The fastapply client attached to `bufnr`, started and attached now if need be.
---@param bufnr integer
---@return vim.lsp.Client?, string?
local function client_for(bufnr)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = NAME })[1]
  if not client then
    if not M.configured then
      M.setup()
    end
    local id = vim.lsp.start(vim.lsp.config[NAME], { bufnr = bufnr })
    client = id and vim.lsp.get_client_by_id(id)
  end
  if not client then
    return nil, 'the fastapply language server did not start (is `fastapply` on PATH?)'
  end
  local ready = vim.wait(M.options.timeout_ms, function()
    return client.initialized and vim.lsp.buf_is_attached(bufnr, client.id)
  end, 20)
  if not ready then
    return nil, 'the fastapply language server did not answer within ' .. M.options.timeout_ms .. ' ms'
  end
  return client
end

local function notify(message, level)
  vim.notify('Fast Apply: ' .. message, level or vim.log.levels.INFO)
end

---Send one fastApply.* command for the current buffer with the snippet from `register`.
---@param command string
---@param register? string
---@param on_result fun(result: table, bufnr: integer)
local function execute(command, register, on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  local reg = M.default_register(register)
  local snippet = vim.fn.getreg(reg)
  if snippet == '' then
    notify('register ' .. reg .. ' is empty', vim.log.levels.ERROR)
    return
  end
  local client, problem = client_for(bufnr)
  if not client then
    notify(problem, vim.log.levels.ERROR)
    return
  end
  local params = { command = command, arguments = { { uri = vim.uri_from_bufnr(bufnr), snippet = snippet } } }
  client:request('workspace/executeCommand', params, function(err, result)
    if err then
      vim.b[bufnr].fastapply_result = { error = err.message }
      notify(err.message, vim.log.levels.ERROR)
      return
    end
    vim.b[bufnr].fastapply_result = result
    on_result(result, bufnr)
  end, bufnr)
end

---:FastApply [register]: merge the snippet into the current buffer.
---@param register? string
function M.apply(register)
  execute('fastApply.apply', register, function(result)
    if result.applied then
      local ms = result.stats and result.stats.wall_ms or 0
      notify(string.format('applied (%s, %d edits, %.0f ms)', result.engine, result.edits or 0, ms))
    elseif result.status == 'ambiguous' then
      notify('ambiguous merge; the buffer is unchanged', vim.log.levels.WARN)
    else
      notify('the editor refused the edit', vim.log.levels.WARN)
    end
  end)
end

---:FastApplyPreview [register]: show the merge as a unified diff in a split; change nothing.
---@param register? string
function M.preview(register)
  execute('fastApply.preview', register, function(result)
    if result.status ~= 'ok' then
      notify('ambiguous merge; nothing to preview', vim.log.levels.WARN)
      return
    end
    local lines = vim.split(result.diff ~= '' and result.diff or 'no changes\n', '\n', { plain = true })
    if lines[#lines] == '' then
      table.remove(lines)
    end
    vim.cmd('new')
    local preview = vim.api.nvim_get_current_buf()
    vim.bo[preview].buftype = 'nofile'
    vim.bo[preview].bufhidden = 'wipe'
    vim.bo[preview].swapfile = false
    vim.api.nvim_buf_set_lines(preview, 0, -1, false, lines)
    vim.bo[preview].modifiable = false
    vim.bo[preview].filetype = 'diff'
    vim.api.nvim_buf_set_name(preview, 'fastapply://preview/' .. preview)
  end)
end

return M
