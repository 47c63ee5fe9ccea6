print("abctl")
