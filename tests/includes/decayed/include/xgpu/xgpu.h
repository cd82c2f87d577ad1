/* the API (stand-in) */
