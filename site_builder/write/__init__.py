"""Stage 6: both sites staged, swapped in together, and then verified (links, teacher-text leaks).
"""
