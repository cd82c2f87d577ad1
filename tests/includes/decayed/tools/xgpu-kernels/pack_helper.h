/* a tool's private header */
