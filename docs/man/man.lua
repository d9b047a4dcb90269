-- man.lua: a pandoc filter that makes a man page of a header (NAME,
-- SYNOPSIS, ... as "##" sections) followed by one of docs/*.md: the
-- document's own "#" title is dropped and every other heading moves up one
-- level, so "##" sections are .SH and "###" are .SS.
function Header(h)
  if h.level == 1 then
    return {}
  end
  h.level = h.level - 1
  return h
end
