"""Who is asking, as access lists name people: identities and groups, from Microsoft Graph
when it is configured. Platform-neutral: adapters bring what their platform says about the
asker (an e-mail address, an Entra object id) and get a `knowledge.access.Reader` back."""
