"""serve"""
