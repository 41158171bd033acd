"""Where sources come from besides retain's messages: documents (files in, located chunks out) and chats
(chat exports read by gieok.importers)."""
