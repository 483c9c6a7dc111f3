"""Stage 3: every rule across the site (``check_site``), numbers typed by hand, the pictures pages show;
``PreparedSite`` is what the stage hands on.
"""
