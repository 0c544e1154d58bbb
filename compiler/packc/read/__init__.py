"""Reading a document: path or URL to the frozen model (load, bundle $refs, overlay, Swagger 2.0, normalize), and the user's own say (stubs, x-packc)."""
