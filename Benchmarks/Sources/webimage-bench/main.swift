import WebImage
print("bench")
