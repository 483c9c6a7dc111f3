"""vocabulary"""
